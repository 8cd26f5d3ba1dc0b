package main

import (
	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/middleware"
)

// lockConfig is the Template's configuration; the zero value means Lock4j's
// defaults.
func lockConfig() lock4go.Config { return lock4go.Config{KeyPrefix: "shop"} }

func memoryOptions() memory.Options { return memory.Options{} }

// paySpec locks each payment on its order id: shop:pay#<id>.
func paySpec() middleware.HTTPSpec {
	return middleware.HTTPSpec{Name: "pay", Keys: []string{"path.id"}}
}
