package zookeeper

// LockPath returns the lock parent of key: the znode, [Options.BasePath] +
// "/" + the escaped key, under which key's lock nodes queue (the child with
// the lowest sequence number holds the lock). It does not touch ZooKeeper.
// Operators and tests use it to inspect or delete a lock node by hand, as
// with zkCli: deleting the holder's node makes its lease lost and grants the
// lock to the next in the queue.
func (e *Executor) LockPath(key string) string { return e.keyPath(key) }
