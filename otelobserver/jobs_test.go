package otelobserver_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/otelobserver"
)

func TestJobObserver_runsSkipsAndHeldPastEnd(t *testing.T) {
	ctx := t.Context()
	reader := sdkmetric.NewManualReader()
	obs, err := otelobserver.NewJobs(otelobserver.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	e := memory.New(memory.Options{})
	defer e.Close()
	tpl, _ := lock4go.New(lock4go.Config{}, e)
	r, err := jobs.New(tpl, jobs.Config{Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	r.Run(ctx, "sweep", func(ctx context.Context) error {
		r.Run(ctx, "sweep", func(context.Context) error { return nil }) // the same job while held: skipped
		return nil
	}, jobs.AtMostFor(time.Minute), jobs.AtLeastFor(time.Second))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int64{}
	var heldPast float64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					v, _ := dp.Attributes.Value("lock4go.outcome")
					outcomes[v.AsString()] += dp.Value
				}
			case metricdata.Histogram[float64]:
				if m.Name == "lock4go.job.held_past_end" {
					heldPast = d.DataPoints[0].Sum
				}
			}
		}
	}
	if outcomes["ran"] != 1 || outcomes["skipped"] != 1 {
		t.Fatalf("lock4go.job.runs by outcome: %v, want ran 1, skipped 1", outcomes)
	}
	if heldPast < 0.9 || heldPast > 1 {
		t.Fatalf("held past end %vs, want just under the at-least-for 1s", heldPast)
	}
}
