package otelobserver

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/lock4go/lock4go/jobs"
)

// JobObserver is a jobs.Observer recording OpenTelemetry metrics of
// scheduled jobs: lock4go.job.runs (ticks, by job and outcome),
// lock4go.job.duration (the runs' time) and lock4go.job.held_past_end
// (how long a job stayed taken after it returned: its at-least-for). The
// job's name is an attribute: job names are few, unlike lock keys. It is
// safe for concurrent use.
type JobObserver struct {
	runs     metric.Int64Counter
	duration metric.Float64Histogram
	heldPast metric.Float64Histogram
}

var _ jobs.Observer = (*JobObserver)(nil)

// NewJobs creates the instruments, with opts.MeterProvider (nil means the
// global one), and returns the observer. Its other options are unused.
func NewJobs(opts Options) (*JobObserver, error) {
	mp := opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(scope)
	o := &JobObserver{}
	var err1, err2, err3 error
	o.runs, err1 = m.Int64Counter("lock4go.job.runs", metric.WithUnit("{tick}"),
		metric.WithDescription("Ticks of scheduled jobs, by outcome: ran, skipped, failed, not_run."))
	o.duration, err2 = m.Float64Histogram("lock4go.job.duration", metric.WithUnit("s"),
		metric.WithDescription("Time a job's function ran."))
	o.heldPast, err3 = m.Float64Histogram("lock4go.job.held_past_end", metric.WithUnit("s"),
		metric.WithDescription("Time a job stayed taken after its function returned (its at-least-for)."))
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	return o, nil
}

// Observe implements jobs.Observer.
func (o *JobObserver) Observe(ctx context.Context, e jobs.Event) {
	job := attribute.String("lock4go.job.name", e.Name)
	o.runs.Add(ctx, 1, metric.WithAttributes(job, attribute.String("lock4go.executor", e.Executor),
		attribute.String("lock4go.outcome", e.Outcome.String())))
	if e.Outcome == jobs.Ran || e.Outcome == jobs.Failed {
		set := metric.WithAttributes(job)
		o.duration.Record(ctx, e.Duration.Seconds(), set)
		o.heldPast.Record(ctx, e.HeldPastEnd.Seconds(), set)
	}
}
