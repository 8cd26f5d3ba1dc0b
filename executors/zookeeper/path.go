package zookeeper

// LockPath returns the znode under which key's lock nodes queue: the base
// path plus the escaped key. Operators and tests use it to inspect or delete
// a lock node by hand, as with zkCli.
func (e *Executor) LockPath(key string) string { return e.keyPath(key) }
