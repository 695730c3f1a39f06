package prometheus

import (
	"context"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
)

// Sources read the gauges that must be true across every process sharing
// the database, so they are read from PostgreSQL at scrape time rather than
// counted in one process. cmd/formd passes the postgres and watermillpg
// adapters' readers.
type Sources struct {
	// Queue reads the delivery queue.
	Queue func(ctx context.Context) (QueueStats, error)
	// Lag reads every consumer group's lag.
	Lag func(ctx context.Context) ([]GroupLag, error)
	// Build is what the binary was built from (formd_build_info).
	Build Build
}

// Build names a binary: its version, commit and Go version.
type Build struct{ Version, Commit, GoVersion string }

// QueueStats is the delivery queue: deliveries not yet final by state, and
// how long the oldest due one has waited for a worker (zero: none due).
type QueueStats struct {
	Queued, Retrying int64
	OldestDue        time.Duration
}

// GroupLag is how many committed messages of a topic a consumer group has
// not acknowledged.
type GroupLag struct {
	Topic, Group string
	Messages     int64
}

// scrapeTimeout bounds the database's share of a scrape.
const scrapeTimeout = 5 * time.Second

var (
	queueDepthDesc = prom.NewDesc("formd_delivery_queue_depth",
		"Deliveries not yet final, by state (queued: not attempted yet; retrying: waiting for a retry), across every process.",
		[]string{"state"}, nil)
	oldestDueDesc = prom.NewDesc("formd_delivery_oldest_due_age_seconds",
		"How long the delivery due the longest has waited for a worker; 0 when none is due.", nil, nil)
	lagDesc = prom.NewDesc("formd_consumer_group_lag_messages",
		"Committed event messages a consumer group has not acknowledged yet, by topic and group.",
		[]string{"topic", "group"}, nil)
)

// databaseCollector reads the gauges when Prometheus scrapes.
type databaseCollector struct{ sources Sources }

func newDatabaseCollector(s Sources) prom.Collector { return databaseCollector{s} }

// Describe implements prom.Collector.
func (databaseCollector) Describe(ch chan<- *prom.Desc) {
	ch <- queueDepthDesc
	ch <- oldestDueDesc
	ch <- lagDesc
}

// Collect implements prom.Collector. A source that fails makes its gauges
// an error of this scrape; the other metrics are still served.
func (c databaseCollector) Collect(ch chan<- prom.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	if c.sources.Queue != nil {
		if q, err := c.sources.Queue(ctx); err != nil {
			ch <- prom.NewInvalidMetric(queueDepthDesc, err)
		} else {
			ch <- prom.MustNewConstMetric(queueDepthDesc, prom.GaugeValue, float64(q.Queued), "queued")
			ch <- prom.MustNewConstMetric(queueDepthDesc, prom.GaugeValue, float64(q.Retrying), "retrying")
			ch <- prom.MustNewConstMetric(oldestDueDesc, prom.GaugeValue, q.OldestDue.Seconds())
		}
	}
	if c.sources.Lag != nil {
		if lags, err := c.sources.Lag(ctx); err != nil {
			ch <- prom.NewInvalidMetric(lagDesc, err)
		} else {
			for _, l := range lags {
				ch <- prom.MustNewConstMetric(lagDesc, prom.GaugeValue, float64(l.Messages), l.Topic, l.Group)
			}
		}
	}
}
