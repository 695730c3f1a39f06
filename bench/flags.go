package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Options are the command-line settings of one run.
type Options struct {
	Concurrency    []int         `json:"concurrency"`
	Step           time.Duration `json:"-"`
	StepRequests   int           `json:"stepRequestCap"`
	WarmupRequests int           `json:"warmupRequests"`
	Rate           float64       `json:"openLoopRate"`
	// Arrivals is the open loops' schedule: "periodic" (one request every
	// 1/rate) or "poisson" (exponential gaps of mean 1/rate, as pgbench -R).
	Arrivals    string        `json:"arrivals"`
	Open        time.Duration `json:"-"`
	OpenWorkers int           `json:"openLoopWorkers"`
	ClientIPs   int           `json:"clientIPs"`
	PgbenchRef  int           `json:"pgbenchReferenceConcurrency"`
	GoalRatio   float64       `json:"goalRatio"`
	GoalP99     time.Duration `json:"-"`
	Deadline    time.Duration `json:"-"`
	Out         string        `json:"-"`
	FormdEnv    string        `json:"formdEnv,omitempty"`
	// Delivery is the delivery phase's load duration (0: no delivery phase).
	Delivery     time.Duration `json:"-"`
	DeliveryWait time.Duration `json:"-"`
	// DeliveryRate overrides half of the closed loop's peak (0: no override).
	DeliveryRate    float64       `json:"deliveryRate,omitempty"`
	GoalDeliveryP99 time.Duration `json:"-"`
	// IntakeBaseline runs the closed loop again without delivery workers.
	IntakeBaseline bool `json:"intakeBaseline"`
	// NaivePeer runs the closed loop's steps against the naive peer
	// (bench/naivepeer), for formd's intake ÷ its rate at each concurrency.
	NaivePeer bool `json:"naivePeer"`
	// PrivatePG runs the whole benchmark on a throwaway PostgreSQL cluster
	// that preloads pg_stat_statements.
	PrivatePG bool `json:"privatePostgres"`
	// PrivatePGSharedBuffers is the private cluster's shared_buffers ("":
	// PostgreSQL's default, 128 MB).
	PrivatePGSharedBuffers string `json:"privatePostgresSharedBuffers,omitempty"`
	// PrivatePGSettings are further settings of the private cluster, each
	// name=value, given to postgres as -c name=value.
	PrivatePGSettings []string `json:"privatePostgresSettings,omitempty"`
	// PrivatePGCPUs gives the private cluster that many CPUs of its own,
	// and formd, the load generator, the naive peer and pgbench's client
	// the others (0: all share every CPU).
	PrivatePGCPUs int `json:"privatePostgresCpus,omitempty"`
	// GoalRSSMiB bounds formd's peak resident memory.
	GoalRSSMiB float64 `json:"goalPeakRssMiB"`
	// GoalStatementUs bounds PostgreSQL statement time per submission.
	GoalStatementUs float64 `json:"goalStatementMicrosPerSubmission"`
	// Preload repeats the open loop and the peak closed-loop step on a
	// database filled with a year of history first (fullPreload).
	Preload bool `json:"preload"`
	// GoalPreloadRatio bounds the preloaded open loop's p50 and p99 ÷ the empty one's.
	GoalPreloadRatio float64 `json:"goalPreloadRatio"`
	// KeepUp searches for the highest open-loop rate at which deliveries
	// keep up, with search runs of KeepUpStep and confirmations of KeepUpConfirm.
	KeepUp        bool          `json:"keepUp"`
	KeepUpStep    time.Duration `json:"-"`
	KeepUpConfirm time.Duration `json:"-"`
	// GoalKeepUp bounds that rate ÷ pgbench tps from below.
	GoalKeepUp float64 `json:"goalKeepUpRatio"`
	// Archive measures intake with the form's archive off and on, in
	// ArchiveRounds steps of each, alternating, at ArchiveConcurrency (0:
	// formd's peak); GoalArchive bounds on ÷ off from below.
	Archive            bool    `json:"archive"`
	ArchiveRounds      int     `json:"archiveRounds"`
	ArchiveConcurrency int     `json:"archiveConcurrency,omitempty"`
	GoalArchive        float64 `json:"goalArchiveRatio"`
	// Spam measures intake with the form's spam check (the test rspamd) off
	// and on, alternating as the archive phase; GoalSpam bounds on ÷ off
	// from below.
	Spam     bool    `json:"spam"`
	GoalSpam float64 `json:"goalSpamRatio"`
	// Relay measures formd beside the relay peer at everyday load; RelayOnly
	// runs that phase alone. GoalRelayCPUUs bounds formd's CPU per delivered
	// submission at 8 clients; Profile, if set, is the folder formd's CPU
	// and allocation profiles of the phase's steps at 1 and 8 clients go to.
	Relay          bool    `json:"relay"`
	RelayOnly      bool    `json:"relayOnly,omitempty"`
	GoalRelayCPUUs float64 `json:"goalRelayCpuMicrosPerDelivered"`
	Profile        string  `json:"profileDir,omitempty"`

	StepSeconds     float64 `json:"stepSeconds"`
	OpenSeconds     float64 `json:"openLoopSeconds"`
	GoalP99Ms       float64 `json:"goalP99Ms"`
	DeadlineSeconds float64 `json:"deadlineSeconds"`
	DeliverySeconds float64 `json:"deliverySeconds"`
	DeliveryWaitSec float64 `json:"deliveryWaitSeconds"`
	GoalDeliveryMs  float64 `json:"goalDeliveryP99Ms"`

	KeepUpStepSeconds    float64 `json:"keepUpStepSeconds"`
	KeepUpConfirmSeconds float64 `json:"keepUpConfirmSeconds"`
}

// The keep-up search's default run durations: search steps, and the run that confirms the result.
const (
	defaultKeepUpStep    = 20 * time.Second
	defaultKeepUpConfirm = 60 * time.Second
)

// relayOnlyDeadline is a -relay-only run's default -deadline besides the
// relay phase's own: formd's build.
const relayOnlyDeadline = time.Minute

// preloadDeadline is what -preload adds to the default -deadline: the fill
// (about 20 s on two cores), a setup, and one more open loop and step.
const preloadDeadline = 3 * time.Minute

func parseFlags() (Options, error) {
	var o Options
	var conc string
	flag.StringVar(&conc, "concurrency", "1,8,32,64,128", "closed-loop concurrency steps, comma-separated")
	flag.DurationVar(&o.Step, "step", 5*time.Second, "duration of each closed-loop step (and of each pgbench run)")
	flag.IntVar(&o.StepRequests, "step-requests", 200000, "request cap of each closed-loop step")
	flag.IntVar(&o.WarmupRequests, "warmup", 200, "unreported warm-up requests at concurrency 8 before the measurements")
	flag.Float64Var(&o.Rate, "rate", 1000, "open-loop rate, requests per second")
	flag.DurationVar(&o.Open, "open", 10*time.Second, "open-loop duration")
	flag.StringVar(&o.Arrivals, "arrivals", arrivalsPeriodic,
		"open-loop schedule: periodic (one request every 1/rate) or poisson (exponential gaps of mean 1/rate, as pgbench --rate schedules its transactions)")
	flag.IntVar(&o.OpenWorkers, "open-workers", 0, "open-loop sender goroutines (0: max(128, rate), at most 4096)")
	flag.IntVar(&o.ClientIPs, "client-ips", 16384,
		"client addresses spread over X-Forwarded-For (formd trusts 127.0.0.1 as its proxy), so the per-IP limit sees many visitors; 0: one address and FORMD_SUBMIT_RATE=0")
	flag.IntVar(&o.PgbenchRef, "pgbench-ref", 64, "pgbench reference concurrency, run besides formd's peak")
	flag.Float64Var(&o.GoalRatio, "goal-ratio", 1.0, "goal: formd peak accepted/s ÷ pgbench tps at that concurrency")
	flag.DurationVar(&o.GoalP99, "goal-p99", 15*time.Millisecond, "goal: open-loop p99 latency")
	flag.DurationVar(&o.Delivery, "delivery", 60*time.Second, "delivery phase: open-loop duration with mail sent to an in-process SMTP server (0: skip the phase)")
	flag.DurationVar(&o.DeliveryWait, "delivery-wait", 30*time.Second, "delivery phase: longest wait for the mails after the load")
	flag.Float64Var(&o.DeliveryRate, "delivery-rate", 0, "delivery phase: open-loop rate (0: half of the closed loop's maximum accepted/s, or the rate formd delivered at during the closed loop if lower)")
	flag.DurationVar(&o.GoalDeliveryP99, "goal-delivery-p99", 100*time.Millisecond, "goal: accept-to-SMTP-received p99 in the delivery phase")
	flag.BoolVar(&o.IntakeBaseline, "intake-baseline", true, "rerun the closed loop with FORMD_DELIVERY_WORKERS=0, for the intake ratio with delivery on and off at the peak and the naive peer comparison at every step")
	flag.BoolVar(&o.NaivePeer, "naive-peer", true, "run the closed loop's steps against the naive peer (Go, Gin, one autocommit INSERT per request, no mail) and compare formd's intake with it at each")
	flag.BoolVar(&o.PrivatePG, "private-pg", false,
		"run on a throwaway PostgreSQL cluster (initdb in a temporary folder, free port, default durability) that preloads pg_stat_statements, for statement time per submission; removed at the end")
	flag.StringVar(&o.PrivatePGSharedBuffers, "private-pg-shared-buffers", "1GB",
		"the private cluster's shared_buffers (empty: PostgreSQL's 128MB). With 128MB, after -preload's 741 MiB fill every statement took 40-60% longer, those that touch no grown table too; with 1GB, as long as on the empty database")
	var pgSettings string
	flag.StringVar(&pgSettings, "private-pg-settings", "",
		"further settings of the private cluster, comma-separated name=value (e.g. max_wal_size=8GB,wal_compression=lz4): they apply to formd, pgbench and the naive peer alike")
	flag.IntVar(&o.PrivatePGCPUs, "private-pg-cpus", 0,
		"give the private cluster this many CPUs of its own (the last ones) and formd, the load generator, the naive peer and pgbench's client the others, so statement time is PostgreSQL's work rather than its wait for a CPU (0: every process shares every CPU)")
	flag.Float64Var(&o.GoalRSSMiB, "goal-rss", 150, "goal: formd's peak resident memory (VmHWM) in MiB")
	flag.Float64Var(&o.GoalStatementUs, "goal-statement-us", 150, "goal: PostgreSQL statement time per accepted and per delivered submission, µs")
	flag.BoolVar(&o.Preload, "preload", false,
		"also run the open loop and the peak closed-loop step on a fresh database filled first with 10,000 accounts, 100,000 forms and 1,000,000 events of delivered history, and compare")
	flag.Float64Var(&o.GoalPreloadRatio, "goal-preload", 1.10, "goal: preloaded ÷ empty open-loop p50 and p99")
	flag.BoolVar(&o.KeepUp, "keep-up", false,
		"also search for the highest open-loop rate at which deliveries keep up (bisection over delivery runs, each on a fresh database), and judge it against pgbench")
	flag.DurationVar(&o.KeepUpStep, "keep-up-step", defaultKeepUpStep, "keep-up search: load duration of each search run")
	flag.DurationVar(&o.KeepUpConfirm, "keep-up-confirm", defaultKeepUpConfirm, "keep-up search: load duration of the run that confirms the result")
	flag.Float64Var(&o.GoalKeepUp, "goal-keep-up", 0.5, "goal: highest rate that keeps up ÷ pgbench tps at formd's peak concurrency")
	flag.BoolVar(&o.Archive, "archive", true,
		"measure intake of one form with its archive off and on, in alternating closed-loop steps of -step on one formd and a fresh database")
	flag.IntVar(&o.ArchiveRounds, "archive-rounds", 2, "archive phase: steps of each setting (at least 2)")
	flag.IntVar(&o.ArchiveConcurrency, "archive-concurrency", 0, "archive phase: concurrency of its steps (0: formd's peak in the closed loop)")
	flag.Float64Var(&o.GoalArchive, "goal-archive", 0.95, "goal: median accepted/s with the archive on ÷ off")
	flag.BoolVar(&o.Spam, "spam", true,
		"measure intake of one form with its spam check (the test rspamd, FORMD_TEST_RSPAMD_URL or scripts/ensure-rspamd.sh) off and on, as the archive phase; skipped without rspamd")
	flag.Float64Var(&o.GoalSpam, "goal-spam", 0.80, "goal: median accepted/s with the spam check on ÷ off")
	flag.BoolVar(&o.Relay, "relay", true,
		"measure formd beside the relay peer (a Go relay that mails each submission within the request, over reused SMTP connections) at each -concurrency, both mailing to an in-process SMTP server: accepted/s and CPU per delivered submission")
	flag.BoolVar(&o.RelayOnly, "relay-only", false, "build formd and run the relay phase alone: no other phase and no pgbench")
	flag.Float64Var(&o.GoalRelayCPUUs, "goal-relay-cpu-us", 120, "goal: formd's CPU per delivered submission at 8 clients in the relay phase, µs")
	flag.StringVar(&o.Profile, "profile", "",
		"folder for formd's CPU and allocation profiles of the relay phase's steps at 1 and 8 clients (formd-c<N>.cpu.pprof, formd-c<N>.allocs.pprof; formd serves them on FORMD_DEBUG_ADDR)")
	flag.DurationVar(&o.Deadline, "deadline", 5*time.Minute,
		"hard bound on the whole run, build included (a default run takes about 5 min; -archive, on by default, adds "+settingDeadline(5*time.Second, 2).String()+
			" at its default rounds and -step, -spam "+settingDeadline(5*time.Second, spamRounds).String()+" at the default -step, -preload "+preloadDeadline.String()+
			", -keep-up "+keepUpDeadline(defaultKeepUpStep, defaultKeepUpConfirm).String()+" at its default durations and -relay (on by default) "+
			relayDeadline(5*time.Second, 5).String()+" at the default -step and -concurrency, unless -deadline is given; with -relay-only it is "+
			(relayOnlyDeadline+relayDeadline(5*time.Second, 5)).String()+" at those defaults)")
	flag.StringVar(&o.FormdEnv, "formd-env", "", "extra formd settings, comma-separated NAME=value (e.g. FORMD_DELIVERY_WORKERS=2)")
	flag.StringVar(&o.Out, "out", "", "JSON report path (default bench/results/latest.json)")
	flag.Parse()
	deadlineSet := false
	flag.Visit(func(f *flag.Flag) { deadlineSet = deadlineSet || f.Name == "deadline" })
	if o.Preload && !deadlineSet {
		o.Deadline += preloadDeadline
	}
	if o.KeepUp && !deadlineSet {
		o.Deadline += keepUpDeadline(o.KeepUpStep, o.KeepUpConfirm)
	}
	if o.Archive && !deadlineSet {
		o.Deadline += settingDeadline(o.Step, o.ArchiveRounds)
	}
	if o.Spam && !deadlineSet {
		o.Deadline += settingDeadline(o.Step, spamRounds)
	}
	for _, f := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-concurrency: %q is not a positive integer", f)
		}
		o.Concurrency = append(o.Concurrency, n)
	}
	if o.RelayOnly {
		o.Relay = true
		if !deadlineSet {
			o.Deadline = relayOnlyDeadline + relayDeadline(o.Step, len(o.Concurrency))
		}
	} else if o.Relay && !deadlineSet {
		o.Deadline += relayDeadline(o.Step, len(o.Concurrency))
	}
	if o.GoalRelayCPUUs <= 0 {
		return o, errors.New("-goal-relay-cpu-us must be positive")
	}
	if o.Step <= 0 || o.Open <= 0 || o.Rate <= 0 || o.StepRequests < 1 || o.PgbenchRef < 1 {
		return o, errors.New("-step, -open, -rate, -step-requests and -pgbench-ref must be positive")
	}
	if o.Arrivals != arrivalsPeriodic && o.Arrivals != arrivalsPoisson {
		return o, fmt.Errorf("-arrivals: %q is neither %s nor %s", o.Arrivals, arrivalsPeriodic, arrivalsPoisson)
	}
	if o.Delivery < 0 || o.DeliveryWait < 0 || o.DeliveryRate < 0 {
		return o, errors.New("-delivery, -delivery-wait and -delivery-rate must not be negative")
	}
	if o.GoalRSSMiB <= 0 || o.GoalStatementUs <= 0 || o.GoalPreloadRatio <= 0 || o.GoalKeepUp <= 0 {
		return o, errors.New("-goal-rss, -goal-statement-us, -goal-preload and -goal-keep-up must be positive")
	}
	if err := archiveFlagsError(o); err != nil {
		return o, err
	}
	if o.GoalSpam <= 0 {
		return o, errors.New("-goal-spam must be positive")
	}
	if o.KeepUpStep <= 0 || o.KeepUpConfirm <= 0 {
		return o, errors.New("-keep-up-step and -keep-up-confirm must be positive")
	}
	if o.ClientIPs < 0 || o.ClientIPs > 1<<24 {
		return o, errors.New("-client-ips must be between 0 and 16777216")
	}
	if err := setPrivatePG(&o, pgSettings); err != nil {
		return o, err
	}
	if o.OpenWorkers <= 0 {
		o.OpenWorkers = min(max(128, int(o.Rate)), 4096)
	}
	o.StepSeconds, o.OpenSeconds = o.Step.Seconds(), o.Open.Seconds()
	o.GoalP99Ms, o.DeadlineSeconds = ms(o.GoalP99), o.Deadline.Seconds()
	o.DeliverySeconds, o.DeliveryWaitSec, o.GoalDeliveryMs = o.Delivery.Seconds(), o.DeliveryWait.Seconds(), ms(o.GoalDeliveryP99)
	o.KeepUpStepSeconds, o.KeepUpConfirmSeconds = o.KeepUpStep.Seconds(), o.KeepUpConfirm.Seconds()
	return o, nil
}

// setPrivatePG checks the private cluster's CPUs and settings, which only
// -private-pg has, and sets o's settings from their comma-separated list.
func setPrivatePG(o *Options, settingsList string) error {
	if o.PrivatePGCPUs < 0 || (o.PrivatePGCPUs > 0 && !o.PrivatePG) {
		return errors.New("-private-pg-cpus must not be negative, and needs -private-pg")
	}
	settings, err := parseServerSettings(settingsList)
	if err != nil {
		return fmt.Errorf("-private-pg-settings: %w", err)
	}
	if len(settings) > 0 && !o.PrivatePG {
		return errors.New("-private-pg-settings needs -private-pg: the machine's server is not the bench's to configure")
	}
	o.PrivatePGSettings = settings
	return nil
}

// parseServerSettings splits a comma-separated list of name=value server
// settings; an empty list is none.
func parseServerSettings(list string) ([]string, error) {
	var settings []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, value, ok := strings.Cut(f, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(value) == "" {
			return nil, fmt.Errorf("%q is not name=value", f)
		}
		settings = append(settings, strings.TrimSpace(name)+"="+strings.TrimSpace(value))
	}
	return settings, nil
}
