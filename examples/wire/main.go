package main

import (
	"context"
	"log"
)

func main() {
	svc, err := initOrderService(lockConfig(), memoryOptions())
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.Pay(context.Background(), "42"); err != nil {
		log.Fatal(err)
	}
}
