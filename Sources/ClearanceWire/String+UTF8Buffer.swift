extension String {
    /// Calls `body` with the string's UTF-8 bytes, copying only if the string is not already
    /// stored as contiguous UTF-8 (native Swift strings are).
    @inline(__always)
    package func withUTF8Buffer<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = self
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
