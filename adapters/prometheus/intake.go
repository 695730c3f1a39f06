package prometheus

import (
	prom "github.com/prometheus/client_golang/prometheus"
)

// IntakeLoad is this process's count of submissions in progress and of the
// times its delivery senders gave way to them.
type IntakeLoad interface {
	InProgress() int64
	GaveWay() int64
}

// WatchIntake serves this process's intake load: its submissions in
// progress and how often its delivery senders have given way to them
// (the delivery workers' intake load), read at scrape time. A delivery queue that
// grows while the give-ways climb is a burst being accepted first.
func (m *Metrics) WatchIntake(l IntakeLoad) {
	m.registry.MustRegister(
		prom.NewGaugeFunc(prom.GaugeOpts{Name: "formd_submissions_in_progress",
			Help: "Submissions this process is judging and committing now."},
			func() float64 { return float64(l.InProgress()) }),
		prom.NewCounterFunc(prom.CounterOpts{Name: "formd_delivery_give_ways_total",
			Help: "Times a delivery sender of this process waited before an attempt because intake was saturated (FORMD_DELIVERY_GIVE_WAY_AT)."},
			func() float64 { return float64(l.GaveWay()) }))
}
