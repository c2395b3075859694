import Foundation

/// Writes a line to standard error (progress, warnings, errors), keeping stdout for data.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// A buffered writer to standard output or a file: records are appended as text and written in
/// large chunks.
final class TextOutput {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private let path: String?

    /// Standard output, or the file at `path` (created or truncated).
    init(path: String?) throws {
        self.path = path
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let handle = FileHandle(forWritingAtPath: path) else {
                throw CLIError("cannot create \(path): check that its folder exists and is writable")
            }
            self.handle = handle
        } else {
            handle = FileHandle.standardOutput
        }
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends text.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Appends bytes that are already UTF-8 text.
    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes what is buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    deinit {
        flush()
        if path != nil { try? handle.close() }
    }
}

/// An error the CLI reports as one line: what was wrong and what to do.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    /// Exit code for this failure.
    var exitCode: Int32
    init(_ description: String, exitCode: Int32 = 1) {
        self.description = description
        self.exitCode = exitCode
    }
}
