// Command plainhttp is lockhttp's service on go-redis and net/http alone: a
// SET NX PX lock and a compare-and-delete release, the floor lockhttp's
// binary is measured against.
package main

import (
	"crypto/rand"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

var release = goredis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)

func main() {
	client := goredis.NewClient(&goredis.Options{Addr: os.Getenv("REDIS_ADDR")})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders/{id}/pay", func(w http.ResponseWriter, r *http.Request) {
		key, owner := "pay#"+r.PathValue("id"), rand.Text()
		ok, err := client.SetNX(r.Context(), key, owner, 30*time.Second).Result()
		switch {
		case err != nil:
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		case !ok:
			http.Error(w, "busy", http.StatusTooManyRequests)
			return
		}
		defer release.Run(r.Context(), client, []string{key}, owner)
		fmt.Fprintf(w, "paid order %s\n", r.PathValue("id"))
	})
	log.Fatal(http.ListenAndServe(os.Getenv("ADDR"), mux))
}
