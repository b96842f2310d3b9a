import Foundation

/// The first line of an action log: which program wrote it, for which action type, and in which
/// version of that type's encoding.
///
/// ``ActionLogRecorder`` writes it; ``ActionLog`` checks it before reading any entry, so a log
/// is never replayed into the wrong program or an action type it was not written for:
///
/// ```json
/// {"actionLog":1,"actionType":"TicTacToeCore.TicTacToe.Action","program":"tictactoe","schemaVersion":1}
/// ```
///
/// Logs written before headers existed start directly with their first entry; ``ActionLog``
/// still reads them (its ``ActionLog/header`` is then `nil`) but cannot check where they come
/// from.
public struct ActionLogHeader: Codable, Equatable, Sendable {
  /// The version of the log's own layout (header and entry lines) this library writes.
  static let currentFormat = 1

  /// The version of the log's layout: 1.
  let format: Int

  /// The name of the program that recorded the log, such as `tictactoe`.
  public let program: String

  /// The recorded action type, as `String(reflecting: Action.self)`: module and nesting
  /// included, such as `TicTacToeCore.TicTacToe.Action`.
  public let actionType: String

  /// The version of the actions' encoding: raise it when the action type changes in a way that
  /// older code cannot decode, so that such code refuses the log instead of misreading it.
  public let schemaVersion: Int

  /// Creates a header for the current log layout.
  ///
  /// - Parameters:
  ///   - program: The recording program's name.
  ///   - actionType: `String(reflecting: Action.self)`.
  ///   - schemaVersion: The version of the actions' encoding, from 1.
  public init(program: String, actionType: String, schemaVersion: Int) {
    self.format = Self.currentFormat
    self.program = program
    self.actionType = actionType
    self.schemaVersion = schemaVersion
  }

  /// The name the recorder and reader use when given no program name: the running
  /// executable's file name (`ProcessInfo.processName`).
  public static var currentProgram: String { ProcessInfo.processInfo.processName }

  private enum CodingKeys: String, CodingKey {
    // The key that tells a header from an entry: entries have no `actionLog` key.
    case format = "actionLog"
    case program, actionType, schemaVersion
  }
}
