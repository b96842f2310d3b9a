#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes `text` to standard error in one `write` call, unbuffered, so that lines from several
/// threads do not interleave mid-line and nothing is lost if the process exits right after.
func writeToStandardError(_ text: String) {
  let bytes = Array(text.utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
