import Foundation
import Unidirectional

/// One log's sink in a ``PostgresActionLogDatabase``: its lines are staged in the database's
/// round, and the first flush of the round commits every log's lines in one transaction.
final class PostgresActionLogSink: ActionLogSink {
  let database: PostgresActionLogDatabase
  /// The log's key in the tables.
  let name: String

  init(database: PostgresActionLogDatabase, name: String) {
    self.database = database
    self.name = name
  }

  deinit {
    database.forget(log: name)
  }

  func write(_ lines: Data) throws(ActionLogError) {
    database.stage(lines, log: name)
  }

  func flush() throws(ActionLogError) {
    try database.flush(log: name)
  }
}
