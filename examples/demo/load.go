package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go/middleware"
)

const sentAtHeader = "x-sent-at"

func paySpec(cfg config) middleware.Spec {
	return middleware.Spec{Name: "pay", AcquireTimeout: cfg.acquireTimeout}
}

// stats is what the payments inside the lock observe.
type stats struct {
	work     time.Duration
	orders   []orderState
	overlaps atomic.Int64
	executed atomic.Int64

	mu       sync.Mutex
	waits    []time.Duration // request sent → inside the lock
	handoffs []time.Duration // previous holder left → next holder inside
}

type orderState struct {
	inside  atomic.Int32
	waiting atomic.Int32 // requests sent and not yet answered

	mu        sync.Mutex // guards the bookkeeping below, never the payment
	releaseAt time.Time
	queued    bool // someone was waiting when the last holder left
}

func newStats(orders int, work time.Duration) *stats {
	return &stats{work: work, orders: make([]orderState, orders)}
}

// pay is the critical section: it runs inside the lock of one order, checks
// that no other payment of that order is inside, and records timings.
func (s *stats) pay(ctx context.Context, order string) error {
	entered := time.Now()
	i, err := strconv.Atoi(order)
	if err != nil || i < 0 || i >= len(s.orders) {
		return fmt.Errorf("unknown order %q", order)
	}
	o := &s.orders[i]
	if o.inside.Add(1) != 1 {
		s.overlaps.Add(1)
	}
	var handoff time.Duration
	o.mu.Lock()
	if o.queued {
		handoff, o.queued = entered.Sub(o.releaseAt), false
	}
	o.mu.Unlock()
	time.Sleep(s.work)
	o.mu.Lock()
	o.releaseAt = time.Now()
	o.queued = o.waiting.Load() > 1
	o.mu.Unlock()
	o.inside.Add(-1)
	s.executed.Add(1)

	s.mu.Lock()
	if sent, ok := sentAt(ctx); ok {
		s.waits = append(s.waits, entered.Sub(sent))
	}
	if handoff > 0 {
		s.handoffs = append(s.handoffs, handoff)
	}
	s.mu.Unlock()
	return nil
}

type loadResult struct {
	requests, executedHTTP, executedGRPC int64
	rejectedHTTP, rejectedGRPC           int64
	failed                               int64
	firstErr                             error
	elapsed                              time.Duration
}

// runLoad sends the payments from concurrent clients, spread over the
// instances and over HTTP and gRPC.
func runLoad(ctx context.Context, cfg config, svcs []*service, st *stats) (*loadResult, error) {
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients}, Timeout: 30 * time.Second}
	defer httpc.CloseIdleConnections()
	var grpcs []testgrpc.TestServiceClient
	for _, s := range svcs {
		conn, err := grpc.NewClient(s.grpcLis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		grpcs = append(grpcs, testgrpc.NewTestServiceClient(conn))
	}
	var (
		res  loadResult
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
		cnt  [5]atomic.Int64 // executed HTTP, executed gRPC, rejected HTTP, rejected gRPC, failed
	)
	fail := func(err error) {
		cnt[4].Add(1)
		mu.Lock()
		if res.firstErr == nil {
			res.firstErr = err
		}
		mu.Unlock()
	}
	start := time.Now()
	for range cfg.clients {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= cfg.requests {
					return
				}
				order := n % cfg.orders
				svc := n / cfg.orders % len(svcs)
				o := &st.orders[order]
				o.waiting.Add(1)
				if n%2 == 0 {
					code, err := payHTTP(ctx, httpc, svcs[svc].httpURL, order)
					switch {
					case err != nil:
						fail(err)
					case code == http.StatusNoContent:
						cnt[0].Add(1)
					case code == http.StatusTooManyRequests:
						cnt[2].Add(1)
					default:
						fail(fmt.Errorf("HTTP status %d", code))
					}
				} else {
					err := payGRPC(ctx, grpcs[svc], order)
					switch status.Code(err) {
					case codes.OK:
						cnt[1].Add(1)
					case codes.Aborted:
						cnt[3].Add(1)
					default:
						fail(err)
					}
				}
				o.waiting.Add(-1)
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.requests = int64(cfg.requests)
	res.executedHTTP, res.executedGRPC = cnt[0].Load(), cnt[1].Load()
	res.rejectedHTTP, res.rejectedGRPC = cnt[2].Load(), cnt[3].Load()
	res.failed = cnt[4].Load()
	return &res, nil
}

func payHTTP(ctx context.Context, c *http.Client, base string, order int) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/orders/%d/pay", base, order), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set(sentAtHeader, strconv.FormatInt(time.Now().UnixNano(), 10))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func payGRPC(ctx context.Context, c testgrpc.TestServiceClient, order int) error {
	ctx = metadata.AppendToOutgoingContext(ctx, "order-id", strconv.Itoa(order),
		sentAtHeader, strconv.FormatInt(time.Now().UnixNano(), 10))
	_, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{})
	return err
}

// sentAt reads the client's send time from the HTTP header or gRPC metadata
// that the handler's context carries.
func sentAt(ctx context.Context) (time.Time, bool) {
	v := ""
	if r, ok := ctx.Value(requestKey{}).(*http.Request); ok {
		v = r.Header.Get(sentAtHeader)
	} else if md, ok := metadata.FromIncomingContext(ctx); ok && len(md.Get(sentAtHeader)) > 0 {
		v = md.Get(sentAtHeader)[0]
	}
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

// orderFromMetadata returns the order id a gRPC call carries.
func orderFromMetadata(ctx context.Context) (string, bool) {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok || len(md.Get("order-id")) == 0 {
		return "", false
	}
	return md.Get("order-id")[0], true
}

type requestKey struct{}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}
