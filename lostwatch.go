package lock4go

import "sync"

// lostWatch waits on executors' Lost channels: one goroutine per distinct
// channel, however many locks share it (executors return one channel per
// session), gone when no lock uses the channel any more.
type lostWatch struct {
	mu     sync.Mutex
	groups map[<-chan struct{}]*lostGroup
}

type lostGroup struct {
	hs   map[*held]struct{}
	stop chan struct{}
}

func (w *lostWatch) add(ch <-chan struct{}, h *held) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.groups == nil {
		w.groups = map[<-chan struct{}]*lostGroup{}
	}
	g := w.groups[ch]
	if g == nil {
		g = &lostGroup{hs: map[*held]struct{}{}, stop: make(chan struct{})}
		w.groups[ch] = g
		go w.watch(ch, g)
	}
	g.hs[h] = struct{}{}
}

func (w *lostWatch) remove(ch <-chan struct{}, h *held) {
	w.mu.Lock()
	defer w.mu.Unlock()
	g := w.groups[ch]
	if g == nil {
		return
	}
	delete(g.hs, h)
	if len(g.hs) == 0 {
		close(g.stop)
		delete(w.groups, ch)
	}
}

func (w *lostWatch) watch(ch <-chan struct{}, g *lostGroup) {
	select {
	case <-ch:
	case <-g.stop:
		return
	}
	w.mu.Lock()
	if w.groups[ch] == g {
		delete(w.groups, ch)
	}
	hs := make([]*held, 0, len(g.hs))
	for h := range g.hs {
		hs = append(hs, h)
	}
	w.mu.Unlock()
	for _, h := range hs {
		h.lose("the backend reported the lease gone", nil, false)
	}
}
