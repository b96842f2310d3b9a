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
/// Its `actionLog` key is the version of the file's layout, which decides how every line after
/// the header is read:
///
/// - **1**, written by ``ActionLogRecorder``: each entry is its JSON object, then a newline.
/// - **2**, written by ``DurableActionLog``: each entry is the CRC-32C (Castagnoli) of its JSON
///   object as 8 lowercase hexadecimal digits, one space, the JSON object, then a newline (see
///   ``ActionLogEntry``). The header line itself stays plain JSON in both versions, so that a
///   reader that knows only version 1 finds the version and refuses the file by name.
///
/// A reader refuses a version it does not know
/// (``ActionLogError/Reason/unsupportedFormat(found:supported:)``) rather than guess at its lines.
///
/// Logs written before headers existed start directly with their first entry; ``ActionLog``
/// still reads them (its ``ActionLog/header`` is then `nil`) but cannot check where they come
/// from.
public struct ActionLogHeader: Codable, Equatable, Sendable {
  /// The layout ``ActionLogRecorder`` writes: plain JSON lines, for people and `jq` to read.
  static let recorderFormat = 1

  /// The layout ``DurableActionLog`` writes: each entry prefixed with its CRC-32C, so that
  /// recovery tells a write cut off by a crash from damage to an acknowledged entry.
  static let durableFormat = 2

  /// The layouts this library reads.
  static let supportedFormats = [recorderFormat, durableFormat]

  /// The version of the log's layout: 1 or 2.
  let format: Int

  /// The name of the program that recorded the log, such as `tictactoe`.
  public let program: String

  /// The recorded action type, as `String(reflecting: Action.self)`: module and nesting
  /// included, such as `TicTacToeCore.TicTacToe.Action`.
  public let actionType: String

  /// The version of the actions' encoding: raise it when the action type changes in a way that
  /// older code cannot decode, so that such code refuses the log instead of misreading it.
  public let schemaVersion: Int

  /// A durable log's identity, unique to the file (a UUID), so that recovery never pairs a log
  /// with another log's snapshot; `nil` in ``ActionLogRecorder``'s logs.
  let logID: String?

  /// Creates a header for the layout ``ActionLogRecorder`` writes (format version 1: plain
  /// JSON lines).
  ///
  /// - Parameters:
  ///   - program: The recording program's name.
  ///   - actionType: `String(reflecting: Action.self)`.
  ///   - schemaVersion: The version of the actions' encoding, from 1.
  public init(program: String, actionType: String, schemaVersion: Int) {
    self.format = Self.recorderFormat
    self.program = program
    self.actionType = actionType
    self.schemaVersion = schemaVersion
    self.logID = nil
  }

  /// Creates a header for a durable log, with an identity of its own, in `format` (a new durable
  /// log's by default).
  init(
    program: String, actionType: String, schemaVersion: Int, logID: String,
    format: Int = durableFormat
  ) {
    self.format = format
    self.program = program
    self.actionType = actionType
    self.schemaVersion = schemaVersion
    self.logID = logID
  }

  /// The name the recorder and reader use when given no program name: the running
  /// executable's file name (`ProcessInfo.processName`).
  public static var currentProgram: String { ProcessInfo.processInfo.processName }

  private enum CodingKeys: String, CodingKey {
    // The key that tells a header from an entry: entries have no `actionLog` key.
    case format = "actionLog"
    case program, actionType, schemaVersion, logID
  }
}

extension ActionLogHeader {
  /// The header on `line` checked against the reader's program, action type and schema version, or `nil` if the line is not a header
  /// (a log from before headers, or an empty file).
  static func read(
    from line: Data, path: String, program: String, actionType: String, schemaVersion: Int
  ) throws(ActionLogError) -> ActionLogHeader? {
    let decoder = JSONDecoder()
    // An object with an `actionLog` key is a header; anything else is left to the entries.
    guard (try? decoder.decode(HeaderProbe.self, from: Data(line)))?.actionLog != nil else {
      return nil
    }
    let fail = { (reason: ActionLogError.Reason) in
      ActionLogError(path: path, line: 1, reason: reason)
    }
    let header: ActionLogHeader
    do {
      header = try decoder.decode(ActionLogHeader.self, from: Data(line))
    } catch {
      throw fail(.invalidEntry("not a valid header: \(ActionLogError.summary(of: error))"))
    }
    // Any version not known, older or newer: its lines cannot be read by these rules.
    guard ActionLogHeader.supportedFormats.contains(header.format) else {
      throw fail(
        .unsupportedFormat(found: header.format, supported: ActionLogHeader.supportedFormats))
    }
    guard header.program == program else {
      throw fail(.otherProgram(recorded: header.program, reading: program))
    }
    guard header.actionType == actionType else {
      throw fail(.otherActionType(recorded: header.actionType, reading: actionType))
    }
    guard header.schemaVersion <= schemaVersion else {
      throw fail(.newerSchema(recorded: header.schemaVersion, supported: schemaVersion))
    }
    return header
  }
}

/// The one key that tells a header line from an entry.
private struct HeaderProbe: Decodable {
  let actionLog: Int?
}
