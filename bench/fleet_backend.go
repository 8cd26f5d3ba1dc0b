package bench

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// backendUse is what a backend server did: commands (or requests, or
// packets) it received and CPU it used.
type backendUse struct {
	cmds int64
	cpu  time.Duration
	// byCmd is Redis's INFO commandstats: the calls of each command by its
	// name, and the µs inside it by "usec:" and its name.
	byCmd map[string]int64
}

func (u backendUse) minus(v backendUse) backendUse {
	d := backendUse{cmds: u.cmds - v.cmds, cpu: u.cpu - v.cpu}
	for k, n := range u.byCmd {
		if n -= v.byCmd[k]; n != 0 {
			if d.byCmd == nil {
				d.byCmd = map[string]int64{}
			}
			d.byCmd[k] = n
		}
	}
	return d
}

// readBackend reads b's counters: Redis INFO commandstats (every command,
// script internals included, but INFO itself) and INFO cpu; etcd's
// grpc_server_msg_received_total from /metrics; ZooKeeper's packets
// received (mntr); the CPU of etcd and ZooKeeper from /proc.
func readBackend(ctx context.Context, env *Env, b Backend) (backendUse, error) {
	var u backendUse
	var err error
	switch b {
	case Redis:
		calls, usec, err := (RedisStats{Client: env.redisStats}).commandstatsUsec(ctx)
		if err != nil {
			return u, err
		}
		u.byCmd = map[string]int64{}
		for k, v := range calls {
			if k != "info" {
				u.cmds += v
				u.byCmd[k] = v
				u.byCmd["usec:"+k] = usec[k]
			}
		}
		u.cpu, err = redisCPU(ctx, env)
		return u, err
	case Etcd:
		u.cmds, err = etcdReceived(ctx, env.EtcdAddr)
	case ZooKeeper:
		u.cmds, err = ZooKeeperStats{Addr: env.ZooKeeperAddr}.packets(ctx)
	case Postgres:
		return postgresUse(ctx, env.PostgresAddr)
	case MySQL:
		return mysqlUse(ctx, env)
	}
	if err != nil {
		return u, err
	}
	u.cpu, err = processCPU(env.serverPID(b))
	return u, err
}

// redisCPU returns used_cpu_sys + used_cpu_user of INFO cpu.
func redisCPU(ctx context.Context, env *Env) (time.Duration, error) {
	s, err := env.redisStats.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	var total float64
	for line := range strings.Lines(s) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("INFO cpu %q: %w", line, err)
			}
			total += f
		}
	}
	return time.Duration(total * float64(time.Second)), nil
}

// etcdReceived sums grpc_server_msg_received_total over methods: every
// request, stream message (watch, keep-alive) included.
func etcdReceived(ctx context.Context, addr string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var n int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "grpc_server_msg_received_total{") {
			continue
		}
		f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("etcd metrics %q: %w", line, err)
		}
		n += int64(f)
	}
	return n, sc.Err()
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat times
// (100 on Linux).
const clockTicks = 100

// processCPU returns utime + stime of process pid.
func processCPU(pid int) (time.Duration, error) {
	if pid == 0 {
		return 0, errNoServerPID
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: fields count after its ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}
