/// Where in a btsnoop file something was found: the record and its byte offset.
public struct CapturePosition: Hashable, Sendable, CustomStringConvertible {
    /// Zero-based record number.
    public var recordIndex: Int
    /// Byte offset of the record's header from the start of the file.
    public var byteOffset: Int

    /// Names a record.
    public init(recordIndex: Int, byteOffset: Int) {
        self.recordIndex = recordIndex
        self.byteOffset = byteOffset
    }

    /// `record #12 (byte offset 1234)`.
    public var description: String { "record #\(recordIndex) (byte offset \(byteOffset))" }
}
