// Driver is a Java process that takes Apache Curator locks on command, for
// lock4go's interop tests (executors/zookeeper/curator_test.go). It connects
// to the ZooKeeper address given as its argument, prints READY, then reads
// one command per line on stdin and answers one line on stdout:
//
//   mutex <path> <ms>   InterProcessMutex.acquire        OK | BUSY
//   unmutex <path>      InterProcessMutex.release        OK
//   read <path> <ms>    InterProcessReadWriteLock read   OK | BUSY
//   unread <path>
//   write <path> <ms>   InterProcessReadWriteLock write  OK | BUSY
//   unwrite <path>
//   sem <path> <n> <ms> InterProcessSemaphoreV2(n) lease OK | BUSY
//   unsem <path>        returns the newest lease of path OK
//   children <path>     the children, space-separated    OK <names…>
//   quit
//
// Any failure answers "ERR <exception>". Commands run one at a time on the
// main thread, so a lock taken by one command is held by that thread.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryOneTime;

public class Driver {
    public static void main(String[] args) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], 10000, 5000, new RetryOneTime(100));
        client.start();
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            System.out.println("ERR not connected");
            System.exit(1);
        }
        Map<String, InterProcessMutex> mutexes = new HashMap<>();
        Map<String, InterProcessReadWriteLock> rws = new HashMap<>();
        Map<String, InterProcessSemaphoreV2> sems = new HashMap<>();
        Map<String, Deque<Lease>> leases = new HashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            String answer;
            try {
                switch (f[0]) {
                    case "mutex":
                        answer = ok(mutexes.computeIfAbsent(f[1], p -> new InterProcessMutex(client, p))
                                .acquire(Long.parseLong(f[2]), TimeUnit.MILLISECONDS));
                        break;
                    case "unmutex":
                        mutexes.get(f[1]).release();
                        answer = "OK";
                        break;
                    case "read":
                        answer = ok(rw(rws, client, f[1]).readLock().acquire(Long.parseLong(f[2]), TimeUnit.MILLISECONDS));
                        break;
                    case "unread":
                        rws.get(f[1]).readLock().release();
                        answer = "OK";
                        break;
                    case "write":
                        answer = ok(rw(rws, client, f[1]).writeLock().acquire(Long.parseLong(f[2]), TimeUnit.MILLISECONDS));
                        break;
                    case "unwrite":
                        rws.get(f[1]).writeLock().release();
                        answer = "OK";
                        break;
                    case "sem": {
                        int n = Integer.parseInt(f[2]);
                        InterProcessSemaphoreV2 s = sems.computeIfAbsent(f[1] + "#" + n, k -> new InterProcessSemaphoreV2(client, f[1], n));
                        Lease l = s.acquire(Long.parseLong(f[3]), TimeUnit.MILLISECONDS);
                        if (l != null) {
                            leases.computeIfAbsent(f[1], k -> new ArrayDeque<>()).push(l);
                        }
                        answer = ok(l != null);
                        break;
                    }
                    case "unsem":
                        leases.get(f[1]).pop().close();
                        answer = "OK";
                        break;
                    case "children": {
                        List<String> children = client.getChildren().forPath(f[1]);
                        answer = "OK " + String.join(" ", children);
                        break;
                    }
                    case "quit":
                        client.close();
                        System.out.println("OK");
                        System.out.flush();
                        System.exit(0);
                        return;
                    default:
                        answer = "ERR unknown command " + f[0];
                }
            } catch (Exception e) {
                answer = "ERR " + e;
            }
            System.out.println(answer);
            System.out.flush();
        }
        client.close();
    }

    private static InterProcessReadWriteLock rw(Map<String, InterProcessReadWriteLock> rws, CuratorFramework client, String path) {
        return rws.computeIfAbsent(path, p -> new InterProcessReadWriteLock(client, p));
    }

    private static String ok(boolean acquired) {
        return acquired ? "OK" : "BUSY";
    }
}
