import BraceletProtocol
import Foundation

/// How an HTTP answer's body is delimited, read from its headers, and the decoding of a chunked
/// body. Everything here checks what a receiver sent before using it as a count or an index: a
/// hostile receiver's answer (a negative length, a chunk size that is not hex, a size line that
/// never ends) is a failed attempt with the reason, never a trap or an unbounded buffer.
enum HTTPAnswerFraming: Equatable {
    /// `Content-Length` bytes.
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Neither: the body ends with the connection.
    case untilClose

    /// The longest chunk-size line taken (size, extensions and CRLF): far more than any real one.
    static let chunkLineLimit = 4_096

    /// The framing `headers` (names lowercased) announce.
    ///
    /// - Throws: ``HTTPFailure/network(_:)`` when `Content-Length` is not a count of bytes.
    init(headers: [String: String]) throws {
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            self = .chunked
        } else if let text = headers["content-length"] {
            guard let length = Self.count(text, radix: 10) else {
                throw HTTPFailure.network("the receiver's answer is malformed: its Content-Length is \"\(Self.shown(text))\", not a count of bytes")
            }
            self = .length(length)
        } else {
            self = .untilClose
        }
    }

    /// What of `raw` (the bytes after the headers) is body, and whether the body is complete.
    ///
    /// - Throws: ``HTTPFailure/network(_:)`` when a chunked body is not valid chunked coding.
    func decode(_ raw: [UInt8]) throws -> (body: ArraySlice<UInt8>, complete: Bool) {
        switch self {
        case let .length(length): return (raw.prefix(length), raw.count >= length)
        case .untilClose: return (raw[...], false)
        case .chunked: return try Self.decodeChunked(raw)
        }
    }

    /// Decodes as much of a chunked body as `raw` holds.
    private static func decodeChunked(_ raw: [UInt8]) throws -> (body: ArraySlice<UInt8>, complete: Bool) {
        var out: [UInt8] = []
        var position = 0
        while true {
            guard let lineEnd = raw[position...].firstRange(of: [13, 10]) else {
                guard raw.count - position <= chunkLineLimit else {
                    throw HTTPFailure.network("the receiver's answer is malformed: a chunk-size line longer than \(chunkLineLimit) bytes")
                }
                return (out[...], false)
            }
            let line = String(decoding: raw[position..<lineEnd.lowerBound], as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard let size = count(sizeText, radix: 16) else {
                throw HTTPFailure.network("the receiver's answer is malformed: the chunk size \"\(shown(sizeText))\" is not a hexadecimal count of bytes")
            }
            if size == 0 { return (out[...], true) }
            let dataStart = lineEnd.upperBound
            let available = min(size, raw.count - dataStart)
            out.append(contentsOf: raw[dataStart..<(dataStart + available)])
            guard available == size, raw.count >= dataStart + size + 2 else { return (out[...], false) }
            guard raw[dataStart + size] == 13, raw[dataStart + size + 1] == 10 else {
                throw HTTPFailure.network("the receiver's answer is malformed: a chunk is longer than its size \(size)")
            }
            position = dataStart + size + 2
        }
    }

    /// `text` (spaces and tabs around it ignored) as a non-negative count in `radix`: digits only,
    /// no sign, at most 15 of them (larger than any body); `nil` otherwise.
    static func count(_ text: String, radix: Int) -> Int? {
        let digits = text.trimmingCharacters(in: [" ", "\t"])
        guard !digits.isEmpty, digits.count <= 15,
              digits.unicodeScalars.allSatisfy({ radix == 16 ? $0.properties.isASCIIHexDigit : ("0"..."9").contains($0) }) else { return nil }
        return Int(digits, radix: radix)
    }

    /// At most 40 characters of a receiver's text, control characters escaped, for a message.
    private static func shown(_ text: String) -> String { OperatorText.escaped(String(text.prefix(40))) }
}
