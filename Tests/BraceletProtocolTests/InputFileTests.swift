#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import BraceletProtocol

/// A fresh folder in the temporary directory for one test (which removes it).
private func scratchFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "bracelet-input-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(cString: made!)
}

private func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

@Suite struct InputFileTests {
    @Test func readsARegularFileAndALinkToOne() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        writeFile(folder + "/a.csv", Array("t,bpm\n".utf8))
        symlink(folder + "/a.csv", folder + "/link.csv")
        #expect(try InputFile.read(path: folder + "/a.csv", what: "CSV file", limit: 100) == Array("t,bpm\n".utf8))
        #expect(try InputFile.read(path: folder + "/link.csv", what: "CSV file", limit: 100) == Array("t,bpm\n".utf8))
        #expect(try InputFile.checkRegularOrMissing(path: folder + "/a.csv", what: "database"))
        #expect(try !InputFile.checkRegularOrMissing(path: folder + "/none.db", what: "database"))
    }

    @Test func refusesANamedPipeWithoutWaitingForAWriter() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: InputFileError.notRegularFile(path: fifo, what: "capture", kind: "a named pipe (FIFO)")) {
            try InputFile.read(path: fifo, what: "capture", limit: InputFile.captureLimit)
        }
        #expect(throws: InputFileError.notRegularFile(path: fifo, what: "database", kind: "a named pipe (FIFO)")) {
            try InputFile.checkRegularOrMissing(path: fifo, what: "database")
        }
    }

    @Test func refusesFoldersDevicesAndMissingFiles() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = #expect(throws: InputFileError.self) { try InputFile.read(path: folder, what: "capture", limit: 100) }
        #expect(error?.description == "\(folder) is a folder, not a capture: name a file inside it")
        #expect(throws: InputFileError.notRegularFile(path: "/dev/zero", what: "capture", kind: "a character device")) {
            try InputFile.read(path: "/dev/zero", what: "capture", limit: 100)
        }
        #expect(throws: InputFileError.missing(path: folder + "/none", what: "CSV file")) {
            try InputFile.read(path: folder + "/none", what: "CSV file", limit: 100)
        }
    }

    @Test func refusesAFileLargerThanItsLimitBeforeReadingIt() throws {
        // A sparse file one byte over the capture limit: refused from its size, nothing is allocated.
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/big.btsnoop"
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(ftruncate(fd, off_t(InputFile.captureLimit + 1)) == 0)
        close(fd)
        #expect(throws: InputFileError.tooLarge(path: path, what: "capture", size: InputFile.captureLimit + 1, limit: InputFile.captureLimit)) {
            try InputFile.read(path: path, what: "capture", limit: InputFile.captureLimit)
        }
    }
}
