// Command scriptcost measures what an uncontended Lock+Release costs one
// redis-server, by variant: the scripts alone (lock4go's acquire.lua and
// release.lua with the Template's arguments, bsm/redislock's, the raw SET
// NX PX floor), lock4go's executor and its Template. Blocks of pairs of
// every variant alternate in a new random order each round, and each
// variant's figures are medians over the rounds: server CPU per pair (INFO
// cpu), the server's time inside the pair's scripts (INFO commandstats
// usec of EVALSHA and EVAL), and the median of the per-round ratios of CPU
// to bsm/redislock's. Point it at a server of its own, from bench/:
//
//	scriptcost -addr 127.0.0.1:6399 -pairs 1000 -rounds 16
//
// -extra names directories holding other versions of acquire.lua,
// release.lua and lib.lua, measured beside the current ones.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "redis-server address (one of its own)")
	pairs := flag.Int("pairs", 1000, "pairs per block")
	rounds := flag.Int("rounds", 12, "blocks per variant, alternated")
	dir := flag.String("lua", "../executors/redis/lua", "directory of lock4go's scripts")
	extra := flag.String("extra", "", "comma-separated directories of other versions of the scripts")
	only := flag.String("only", "", "comma-separated variant names (empty: all)")
	flag.Parse()
	ctx := context.Background()
	c := goredis.NewClient(&goredis.Options{Addr: *addr, ContextTimeoutEnabled: true})
	vs := scriptVariants(*dir, strings.Split(*extra, ","))
	vs = append(vs, lock4goVariants(*addr)...)
	if *only != "" {
		vs = slices.DeleteFunc(vs, func(v variant) bool { return !slices.Contains(strings.Split(*only, ","), v.name) })
	}
	tot := make([]tally, len(vs))
	for r := 0; r <= *rounds; r++ {
		for _, i := range rand.Perm(len(vs)) {
			n := *pairs
			if r == 0 {
				n = 200 // warm-up: scripts loaded, connections dialled
			}
			b, err := block(ctx, c, vs[i], n)
			if err != nil {
				log.Fatalf("%s: %v", vs[i].name, err)
			}
			if r > 0 {
				tot[i].cpu = append(tot[i].cpu, b.cpu)
				tot[i].usec = append(tot[i].usec, b.usec)
			}
		}
	}
	report(vs, tot)
}

// tally is one variant's figures per pair, one per round.
type tally struct{ cpu, usec []float64 }

// perPair is one block's figures per pair: server CPU µs and µs inside the
// scripts.
type perPair struct{ cpu, usec float64 }

// block runs n pairs of v and returns what they cost the server.
func block(ctx context.Context, c *goredis.Client, v variant, n int) (perPair, error) {
	cpu0, usec0, err := counts(ctx, c)
	if err != nil {
		return perPair{}, err
	}
	for k := range n {
		if err := v.pair(ctx, c, k); err != nil {
			return perPair{}, err
		}
	}
	cpu1, usec1, err := counts(ctx, c)
	if err != nil {
		return perPair{}, err
	}
	return perPair{cpu: (cpu1 - cpu0) * 1e6 / float64(n), usec: float64(usec1-usec0) / float64(n)}, nil
}

// report prints one line per variant.
func report(vs []variant, tot []tally) {
	ref := slices.IndexFunc(vs, func(v variant) bool { return v.name == "redislock" })
	fmt.Printf("%-20s %12s %14s %16s %22s\n", "variant", "CPU µs/pair", "script µs/pair", "CPU min–max", "CPU × redislock")
	for i, v := range vs {
		ratio := "-"
		if ref >= 0 {
			var rs []float64
			for r := range tot[i].cpu {
				rs = append(rs, tot[i].cpu[r]/tot[ref].cpu[r])
			}
			ratio = fmt.Sprintf("%.3f (%.2f–%.2f)", median(rs), slices.Min(rs), slices.Max(rs))
		}
		fmt.Printf("%-20s %12.1f %14.2f %8.1f–%-7.1f %22s\n", v.name, median(tot[i].cpu), median(tot[i].usec),
			slices.Min(tot[i].cpu), slices.Max(tot[i].cpu), ratio)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
