package otelobserver_test

import (
	"context"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/otelobserver"
)

// The observer records lock metrics on the meter provider it is given.
func Example() {
	reader := sdkmetric.NewManualReader()
	obs, err := otelobserver.New(otelobserver.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		panic(err)
	}
	tpl, err := lock4go.New(lock4go.Config{Observer: obs}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := tpl.Do(ctx, "order:42", func(context.Context) error { return nil }); err != nil {
		panic(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == "lock4go.hold.duration" {
			h := m.Data.(metricdata.Histogram[float64])
			fmt.Println(m.Name, "samples:", h.DataPoints[0].Count)
		}
	}
	// Output: lock4go.hold.duration samples: 1
}
