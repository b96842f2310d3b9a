/// Why a shared value could not be loaded or saved.
///
/// A store that holds the value reports it through its issue handler (see ``StoreIssue``), with
/// the path and what to do. The value keeps working in memory meanwhile; a file that could not be
/// loaded is never overwritten.
public enum SharedStorageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file exists but cannot be read (permissions, a directory, a missing directory).
  case unreadable(path: String, reason: String)
  /// The file's contents are not a value of the key's type; the file is left as it is.
  case corrupt(path: String, reason: String)
  /// The file cannot be written; it is as it was.
  case unwritable(path: String, reason: String)
  /// The value is not saved, because the file could not be loaded: saving would replace what is
  /// there. Saves resume once the file loads (repaired, or moved away).
  case notOverwritten(path: String)

  /// The file concerned.
  public var path: String {
    switch self {
    case .unreadable(let path, _), .corrupt(let path, _), .unwritable(let path, _),
      .notOverwritten(let path):
      path
    }
  }

  /// One line naming the file and the problem.
  public var description: String {
    switch self {
    case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
    case .corrupt(let path, let reason): "\(path) is not a valid saved value: \(reason)"
    case .unwritable(let path, let reason): "cannot save \(path): \(reason)"
    case .notOverwritten(let path):
      "\(path) was not saved: it could not be loaded, and saving would replace it"
    }
  }

  /// What to do about it, in a sentence or two.
  public var advice: String {
    switch self {
    case .unreadable:
      "Check that the path names a file this user can read, in a directory that exists."
    case .corrupt, .notOverwritten:
      "The file was left untouched. Repair it, or move it away to start from the default value; "
        + "changes are saved again once it loads."
    case .unwritable:
      "The file was not changed. Check that its directory exists and can be written, and that "
        + "the disk has space."
    }
  }
}
