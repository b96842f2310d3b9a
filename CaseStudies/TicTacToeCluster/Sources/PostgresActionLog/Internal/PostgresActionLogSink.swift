import Foundation
import Unidirectional

/// One log's sink in a ``PostgresActionLogDatabase``: its lines are staged in the database's
/// round, and the first flush of the round commits every log's lines in one transaction.
final class PostgresActionLogSink: ActionLogSink {
  let database: PostgresActionLogDatabase
  /// The log's key in the tables.
  let name: String
  /// Which opening of the log this sink writes (see `PostgresActionLogDatabase.LogState`).
  let generation: Int

  init(database: PostgresActionLogDatabase, name: String, generation: Int = 0) {
    self.database = database
    self.name = name
    self.generation = generation
  }

  deinit {
    database.forget(log: name, generation: generation)
  }

  func write(_ lines: Data) throws(ActionLogError) {
    database.stage(lines, log: name, generation: generation)
  }

  func flush() throws(ActionLogError) {
    try database.flush(log: name, generation: generation)
  }
}
