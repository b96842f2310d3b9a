// tictactoe-cluster-shard: one shard of the TicTacToe cluster. It serves the games of the
// partitions it holds a lease on (in PostgreSQL), each partition's journal fenced by its lease,
// and redirects players of the other partitions to their owner. See the package's README.
//
// Exit codes: 0 after SIGINT/SIGTERM; 64 bad arguments; 69 the database cannot be reached at
// start; 71 the socket could not be opened.

import Foundation
import PostgresActionLog
import TicTacToeServerCore
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

let shardUsage = """
  usage: tictactoe-cluster-shard --name NAME [--database CONNINFO] [--listen 127.0.0.1:PORT]
                                 [--advertise HOST:PORT] [--partitions N] [--lease SECONDS]
                                 [--idle-timeout SECONDS] [--abandon-after SECONDS]
                                 [--snapshot-every N] [--quiet]

    --name NAME         this shard's name in the lease table (unique in the cluster)
    --database C        a libpq connection string (empty: libpq's environment)
    --listen A          the loopback address to serve on (default 127.0.0.1:7878; port 0 picks)
    --advertise A       where redirects send clients to this shard (default: the address
                        listened on)
    --partitions N      the cluster's partition count, the same on every shard (default 16)
    --lease S           the lease time in seconds (default 10): how long a dead shard's games
                        wait for another shard; renewed every third of it
    --idle-timeout S, --abandon-after S, --snapshot-every N, --quiet
                        as tictactoe-pg-server's

  Prints "listening on HOST:PORT" on stdout once it accepts connections; logs go to stderr.
  SIGINT or SIGTERM stops it, giving its leases back; SIGUSR1 logs what it holds.
  """

let shardProcess = ServerProcess(program: "tictactoe-cluster-shard")

@main
enum ShardCommand {
  static func main() {
    let signals = ServerProcess.blockSignals()
    let options = ShardOptions(Array(CommandLine.arguments.dropFirst())) { message in
      FileHandle.standardError.write(
        Data("tictactoe-cluster-shard: \(message)\n\(shardUsage)\n".utf8))
      exit(64)
    }
    let shard = Shard(options: options, process: shardProcess)
    shard.installTestingHooks()
    let server: LineServer
    do {
      server = try LineServer(
        host: options.host, port: options.port, log: { shardProcess.log("warning: \($0)") },
        handler: shard.handler)
    } catch {
      shardProcess.fail(error.description, code: 71)
    }
    shard.address.withLock { $0 = options.advertise ?? server.address }
    shard.startLeases()
    server.start()
    shardProcess.log(
      "listening on \(server.address) as \(options.name), advertised as "
        + "\(shard.address.withLock { $0 }); \(options.partitions) partitions, leases of "
        + "\(options.leaseSeconds) s")
    FileHandle.standardOutput.write(Data("listening on \(server.address)\n".utf8))

    let stopSignal = shardProcess.waitForShutdown(signals) {
      let held = shard.served.withLock { $0.keys.sorted() }
      return "partitions \(held), \(shard.routes.withLock(\.count)) sessions, "
        + "\(shard.database.commitCount) commits"
    }
    shardProcess.log("\(stopSignal): no new connections; giving the partitions back")
    shard.stopLeases()
    server.stop {
      for partition in shard.served.withLock({ Array($0.values) }) {
        shard.drop(
          partition, because: "this shard stops (\(stopSignal))",
          advice: "Nothing to do: another shard takes it.", release: true)
      }
    }
    try? shard.leases.withdraw()
    shardProcess.log("stopped: \(shard.database.commitCount) commits in this run")
    exit(0)
  }
}
