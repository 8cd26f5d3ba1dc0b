package bench

// claimEnv enables TestUncontended_claims: timing assertions fail on a busy
// machine, so they run only when asked.
const claimEnv = "LOCK4GO_BENCH_CLAIMS"

// uncontendedClaims are the published bounds: lock4go's uncontended p50 on
// each backend is at most this many times the raw floor's.
var uncontendedClaims = map[Backend]float64{
	Redis:     1.6,
	Etcd:      1.3,
	ZooKeeper: 2.0,
	Postgres:  1.15,
	MySQL:     1.15,
}
