package otelobserver_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/otelobserver"
)

func TestObserver_metricsAndSpans(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs, err := otelobserver.New(otelobserver.Options{MeterProvider: mp, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	// Done closes before the loss is observed: wait for the event itself.
	expiredSeen := make(chan struct{}, 1)
	notify := lock4go.ObserverFunc(func(ctx context.Context, e lock4go.Event) {
		obs.Observe(ctx, e)
		if e.Kind == lock4go.EventExpired {
			expiredSeen <- struct{}{}
		}
	})
	tpl, err := lock4go.New(lock4go.Config{Observer: notify}, memory.New(memory.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, order := range []string{"1", "2", "3"} {
		if err := tpl.Do(ctx, "lock4go:pay#"+order, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	held, _ := tpl.Lock(ctx, "lock4go:pay#1")
	if _, err := tpl.Lock(ctx, "lock4go:pay#1", lock4go.WithAcquireTimeout(20*time.Millisecond)); err == nil {
		t.Fatal("second Lock succeeded")
	}
	if _, err := tpl.Lock(ctx, "lock4go:refund#9", lock4go.WithExpire(10*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	<-expiredSeen

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}
	sum := func(name string) int64 {
		var n int64
		for _, dp := range got[name].(metricdata.Sum[int64]).DataPoints {
			n += dp.Value
		}
		return n
	}
	if n := sum("lock4go.not_acquired"); n != 1 {
		t.Errorf("not_acquired = %d, want 1", n)
	}
	if n := sum("lock4go.expired"); n != 1 {
		t.Errorf("expired = %d, want 1", n)
	}
	if n := sum("lock4go.held"); n != 1 {
		t.Errorf("held = %d, want 1 (the pay#1 lock)", n)
	}
	// Bounded cardinality: three order ids, one lock name.
	names := map[string]bool{}
	for _, dp := range got["lock4go.hold.duration"].(metricdata.Histogram[float64]).DataPoints {
		v, _ := dp.Attributes.Value("lock4go.lock.name")
		names[v.AsString()] = true
	}
	if len(names) != 2 || !names["lock4go:pay"] || !names["lock4go:refund"] {
		t.Errorf("lock names = %v, want lock4go:pay and lock4go:refund", names)
	}
	if n := len(spans.Ended()); n < 8 {
		t.Errorf("%d spans, want acquire and hold spans for every lock", n)
	}
	_ = held.Release(ctx)
}

func TestDefaultLockName(t *testing.T) {
	for in, want := range map[string]string{
		"lock4go:pay#1:2": "lock4go:pay", "#x": "", "order:42": "order", "lock4go:order:42": "lock4go:order",
		"user-8812": otelobserver.UnnamedLock, "": otelobserver.UnnamedLock,
	} {
		if got := otelobserver.DefaultLockName(in); got != want {
			t.Errorf("DefaultLockName(%q) = %q, want %q", in, got, want)
		}
	}
}
