package memory

import (
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/turns"
)

// A key's entry stays in the executor's map a while after it goes idle
// (nobody holds or waits for the key), so that a key locked again soon
// finds it there without a write to the map; the oldest idle entries
// leave the map beyond maxIdleEntries, and are kept for reuse.

// maxIdleEntries bounds the idle entries an executor keeps in its map, and
// those it keeps for reuse besides.
const maxIdleEntries = 64

// Link implements [turns.Idler]: the entry's place among the idle entries.
func (en *entry) Link() *turns.IdleLink[entry] { return &en.link }

// entry returns req's key's entry, made or taken out of the idle list, or
// an error when the key is in use otherwise than req asks (see
// entry.mismatch). The caller holds e.mu.
func (e *Executor) entry(req executor.Request) (*entry, error) {
	en := e.keys[req.Key]
	switch {
	case en == nil:
		en = e.newEntry(req.Key)
		e.keys[req.Key] = en
	case en.link.Listed():
		e.idle.Remove(en)
	default:
		return en, en.mismatch(req)
	}
	en.permits = req.Permits
	return en, nil
}

// newEntry returns an empty entry for key, reusing one when it can. The
// caller holds e.mu.
func (e *Executor) newEntry(key string) *entry {
	n := len(e.free)
	if n == 0 {
		return &entry{key: key}
	}
	en := e.free[n-1]
	e.free[n-1] = nil
	e.free = e.free[:n-1]
	en.key = key
	return en
}

// settle serves key's queue and lists its entry as idle once nobody holds
// or waits for the key: nothing else refers to an idle entry (a waiter
// refers to its entry while it is in the queue). After Close, which empties
// every entry, an idle entry is forgotten. The caller holds e.mu.
func (e *Executor) settle(key string, en *entry) {
	e.serve(en)
	if !en.idle() || en.link.Listed() {
		return
	}
	if e.closed {
		delete(e.keys, key)
		return
	}
	e.idle.Push(en)
	if e.idle.Len() <= maxIdleEntries {
		return
	}
	old := e.idle.Oldest()
	e.idle.Remove(old)
	delete(e.keys, old.key)
	if len(e.free) < maxIdleEntries {
		old.key = ""
		e.free = append(e.free, old)
	}
}
