import Foundation

/// How a ``FileKey`` turns its value into the bytes of its file, and back.
///
/// ``json`` suits any `Codable` value. Write your own to add a format version or to refuse values
/// your program would never have written:
///
/// ```swift
/// let todos = SharedFileFormat<[Todo]>(
///   encode: { try JSONEncoder().encode(TodoFile(version: 1, todos: $0)) },
///   decode: { data in
///     let file = try JSONDecoder().decode(TodoFile.self, from: data)
///     guard file.version == 1 else { throw TodoFileError.unknownVersion(file.version) }
///     return file.todos
///   })
/// ```
public struct SharedFileFormat<Value>: Sendable {
  /// The bytes of the file for a value.
  public let encode: @Sendable (Value) throws -> Data
  /// The value in the bytes of a file. An error it throws is reported as the file being corrupt,
  /// with the error's description as the reason.
  public let decode: @Sendable (Data) throws -> Value

  /// Creates a format from its two directions.
  ///
  /// - Parameters:
  ///   - encode: The bytes of the file for a value.
  ///   - decode: The value in the bytes of a file; throws if they are not one.
  public init(
    encode: @escaping @Sendable (Value) throws -> Data,
    decode: @escaping @Sendable (Data) throws -> Value
  ) {
    self.encode = encode
    self.decode = decode
  }
}

extension SharedFileFormat where Value: Codable & Sendable {
  /// Pretty-printed JSON with sorted keys, ending in a newline.
  public static var json: Self {
    Self(
      encode: { value in
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
      },
      decode: { data in try JSONDecoder().decode(Value.self, from: data) })
  }
}
