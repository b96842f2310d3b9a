import Foundation
@_spi(Testing) import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

// Test-only switches, read from the environment, for the test that holds a shard's journal
// round in flight while another shard takes the lease (`ClusterFenceTests`). Unset, as in
// every real run, they change nothing.
//
// - TICTACTOE_SHARD_TESTING_UNFENCED=1: rounds skip the fence check (split brain: only to
//   prove that the check is what stops a fenced shard's append).
// - TICTACTOE_SHARD_TESTING_HOLD=PATH: PATH is a FIFO. A round that starts while PATH.armed
//   exists removes it, logs "testing: a journal round is held", and waits until a byte is
//   written to the FIFO.
// - TICTACTOE_SHARD_TESTING_FAIL_LOBBY_AFTER_START=1: a pairing with a player elsewhere fails
//   just after the game's start is durable (as when the lobby's UPDATE or COMMIT fails then),
//   for the test that checks such a game is ended and its player told (`ClusterLobbyTests`).

extension Shard {
  /// Whether TICTACTOE_SHARD_TESTING_FAIL_LOBBY_AFTER_START is set (see above).
  static let failsLobbyAfterStart =
    ProcessInfo.processInfo.environment["TICTACTOE_SHARD_TESTING_FAIL_LOBBY_AFTER_START"] == "1"

  /// Installs the switches above if the environment sets them.
  func installTestingHooks() {
    let environment = ProcessInfo.processInfo.environment
    let unfenced = environment["TICTACTOE_SHARD_TESTING_UNFENCED"] == "1"
    let hold = environment["TICTACTOE_SHARD_TESTING_HOLD"]
    guard unfenced || hold != nil else { return }
    let process = self.process
    database.setTestingHooks(
      checksFences: !unfenced,
      beforeRound: hold.map { fifo in
        { @Sendable staged in
          guard unlink(fifo + ".armed") == 0 else { return }
          process.log("testing: a journal round is held (\(staged.joined(separator: ", ")))")
          let descriptor = open(fifo, O_RDONLY)
          guard descriptor >= 0 else { return }
          var byte: UInt8 = 0
          _ = read(descriptor, &byte, 1)
          close(descriptor)
          process.log("testing: the held round goes on")
        }
      })
    if unfenced { process.log("testing: rounds do not check the fences (split brain possible)") }
  }
}
