import Foundation
import Synchronization
import Testing
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// The load tool against several servers that redirect: it spreads its clients over the ports,
/// follows each `redirect` with a new connection and a `rejoin`, and still counts every move.
@Suite struct LoadRedirectTests {
  /// A front that sends each of its players elsewhere once seated: it serves the real server's
  /// sessions, and after a session's `seat` frame it lets the seat go (no forfeit) and sends
  /// `redirect` to the real server's address, as a shard sends a player whose game another
  /// shard serves.
  static func redirectingFront(
    to server: GameServer, at address: String
  ) -> LineServer.Handler {
    LineServer.Handler(
      open: { connection in
        let muted = Atomic(false)
        let session = Atomic(0)
        let id = server.connect(
          ClientLink(
            deliver: { frame in
              guard !muted.load(ordering: .acquiring) else { return }
              connection.send(bytes: frame.bytes)
              guard case .seat(let game, _, _) = frame else { return }
              muted.store(true, ordering: .releasing)
              // Off the thread delivering the frame: the seat is let go, then the client told.
              let id = session.load(ordering: .acquiring)
              DispatchQueue.global().async {
                server.disconnect(id, reason: .shutdown)
                connection.send(bytes: ServerFrame.redirect(game: game, address: address).bytes)
              }
            },
            close: {}))
        session.store(id, ordering: .releasing)
        connection.context.store(id, ordering: .relaxed)
      },
      line: { connection, line in
        server.receive(line, from: connection.context.load(ordering: .relaxed))
      },
      end: { connection, _ in
        server.disconnect(connection.context.load(ordering: .relaxed), reason: .shutdown)
      })
  }

  @Test func theToolFollowsRedirectsAndLosesNoMove() throws {
    try DurableServerTests.withDirectory { directory in
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let server = GameServer(journal: journal)
      let real = try LineServer(port: 0, handler: server.lineHandler)
      real.start()
      let front = try LineServer(
        port: 0, handler: Self.redirectingFront(to: server, at: real.address))
      front.start()
      defer {
        front.stop {}
        real.stop { server.shutdown() }
      }
      let output = try Program.run(
        "tictactoe-load", input: Data(),
        arguments: [
          "--connections", "20", "--duration", "1", "--ports", "\(front.port),\(real.port)",
        ])
      #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
      #expect(
        output.standardOutput.contains("lost moves: 0, duplicated moves: 0, refused frames: 0"))
      // Half the clients start on the front: each of their games sends one of them there.
      let line = output.standardOutput.split(separator: "\n").first {
        $0.hasPrefix("servers: 2")
      }
      let followed = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
      #expect(followed > 0, "\(output.standardOutput)")
    }
  }

  @Test func badServerListsAreRefused() throws {
    for (arguments, message) in [
      (["--ports", "7001,x"], "--ports: 7001,x is not a list of ports"),
      (["--ports", "7001,0"], "--ports: 7001,0 is not a list of ports"),
      (["--server-pid", "1,-2"], "--server-pid: 1,-2 is not a process id"),
      (["--server-pid", "1", "--server-log", "a,b"], "--server-log: 2 logs for 1 server pids"),
    ] {
      let output = try LoadCommandTests.run(arguments)
      #expect(output.status == 64, "\(arguments)")
      #expect(
        output.standardError.hasPrefix("tictactoe-load: \(message)"),
        "\(arguments): \(output.standardError)")
    }
  }
}
