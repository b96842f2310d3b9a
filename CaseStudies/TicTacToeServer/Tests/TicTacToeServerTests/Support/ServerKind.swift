import Testing
import TicTacToeServerCore

/// What the protocol tests need of a server: the game server and its baseline (the load
/// test's yardstick) both serve it, and the tests run against each.
protocol FrameServing: Sendable {
  func connect(_ link: ClientLink) -> Int
  func receive(_ line: some Collection<UInt8>, from id: Int)
  func disconnect(_ id: Int, reason: CloseReason)
  func shutdown()
  var statistics: GameServer.Statistics { get }
  var lineHandler: LineServer.Handler { get }
}

extension GameServer: FrameServing {}
extension BaselineServer: FrameServing {}

/// Which server a protocol test runs against.
enum ServerKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
  /// ``GameServer``: stores, observers, effects.
  case server
  /// ``BaselineServer``: the same reducers on plain state, labelled a baseline.
  case baseline

  var testDescription: String { rawValue }

  /// A new server of this kind.
  func make(_ configuration: GameServer.Configuration = GameServer.Configuration())
    -> any FrameServing
  {
    switch self {
    case .server: GameServer(configuration: configuration)
    case .baseline: BaselineServer(configuration: configuration)
    }
  }
}
