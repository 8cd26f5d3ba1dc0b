// Command lockhttp is a small HTTP service that pays an order under a lock:
// lock4go, its Redis executor and the HTTP middleware. bench/size compares
// its binary with plainhttp's, the same service on go-redis and net/http
// alone.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/middleware"
)

func main() {
	client := goredis.NewClient(&goredis.Options{Addr: os.Getenv("REDIS_ADDR")})
	exec, err := redis.New(client, redis.Options{})
	if err != nil {
		log.Fatal(err)
	}
	tpl, err := lock4go.New(lock4go.Config{}, exec)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /orders/{id}/pay", middleware.HTTP(tpl, middleware.Spec{Keys: []string{"path.id"}})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "paid order %s\n", r.PathValue("id"))
		})))
	log.Fatal(http.ListenAndServe(os.Getenv("ADDR"), mux))
}
