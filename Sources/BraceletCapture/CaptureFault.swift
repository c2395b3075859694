import BraceletProtocol

/// Damage found while turning a capture's HCI packets into ATT PDUs. Each case names the record
/// and byte offset, and its description says what it means and what to do.
public enum CaptureFault: Error, Hashable, Sendable, CustomStringConvertible {
    /// The btsnoop file itself is damaged; nothing after this point could be read.
    case file(BtsnoopError)
    /// A 1002 record with no bytes at all (not even the H4 type byte).
    case emptyPacket(at: CapturePosition)
    /// A 1002 record whose H4 type byte is none of 0x01-0x05.
    case unknownPacketType(UInt8, at: CapturePosition)
    /// An ACL packet shorter than its 4-byte header, or whose header length disagrees with the record.
    case aclLengthMismatch(at: CapturePosition, declared: Int?, actual: Int)
    /// An HCI event whose parameter length disagrees with the record.
    case eventLengthMismatch(at: CapturePosition, declared: Int?, actual: Int)
    /// A continuation fragment arrived with no L2CAP frame in progress on that handle and direction:
    /// the frame's start fragment was lost. The fragment is dropped.
    case continuationWithoutStart(at: CapturePosition, connectionHandle: UInt16, direction: CaptureDirection)
    /// A new start fragment arrived while a frame was still incomplete: at least one continuation
    /// fragment of the earlier frame is missing. The incomplete frame is dropped; the new one is kept.
    case aclFragmentMissing(at: CapturePosition, connectionHandle: UInt16, direction: CaptureDirection,
                            frameStart: CapturePosition, expectedBytes: Int, receivedBytes: Int)
    /// The fragments of a frame added up to more bytes than its L2CAP length field declared. The frame is dropped.
    case l2capLengthMismatch(at: CapturePosition, connectionHandle: UInt16, direction: CaptureDirection,
                             frameStart: CapturePosition, expectedBytes: Int, receivedBytes: Int)
    /// The link went down (Disconnection Complete) or the capture ended while a frame was incomplete.
    /// `at` is the disconnection record, or `nil` at the end of the capture. The frame is dropped.
    case incompleteFrame(at: CapturePosition?, connectionHandle: UInt16, direction: CaptureDirection,
                         frameStart: CapturePosition, expectedBytes: Int, receivedBytes: Int)
    /// An L2CAP frame on the ATT channel (CID 0x0004) with no ATT bytes.
    case emptyATTPDU(at: CapturePosition, connectionHandle: UInt16, direction: CaptureDirection)

    /// Where the fault was found (`nil` for faults at the end of the capture).
    public var position: CapturePosition? {
        switch self {
        case .file(let e):
            switch e {
            case let .truncatedRecordHeader(i, o, _), let .truncatedRecord(i, o, _, _),
                 let .implausibleRecordLength(i, o, _), let .includedLengthExceedsOriginal(i, o, _, _):
                return CapturePosition(recordIndex: i, byteOffset: o)
            default:
                return nil
            }
        case let .emptyPacket(p), let .unknownPacketType(_, p), let .aclLengthMismatch(p, _, _),
             let .eventLengthMismatch(p, _, _), let .continuationWithoutStart(p, _, _),
             let .aclFragmentMissing(p, _, _, _, _, _), let .l2capLengthMismatch(p, _, _, _, _, _),
             let .emptyATTPDU(p, _, _):
            return p
        case let .incompleteFrame(p, _, _, _, _, _):
            return p
        }
    }

    /// What was wrong, where, and what to do.
    public var description: String {
        let lost = "Packets were lost while capturing (or the capture was filtered); frames before and after are still "
            + "read. If a bracelet file transfer was running, its missing range must be re-requested."
        switch self {
        case .file(let e):
            return e.description
        case .emptyPacket(let p):
            return "Empty packet at \(p): an H4 record needs at least its packet type byte. The record is skipped; "
                + "the file is probably damaged there."
        case let .unknownPacketType(t, p):
            return "Unknown H4 packet type \(hexString(t, uppercase: true)) at \(p) (expected 01 command, 02 ACL, 03 SCO, 04 event, 05 ISO). "
                + "The record is skipped; check that the file really is datalink 1002."
        case let .aclLengthMismatch(p, declared, actual):
            return "ACL packet at \(p) has \(actual) bytes after its header but its header declares "
                + "\(declared.map(String.init) ?? "no length (header shorter than 4 bytes)"). The packet is skipped; "
                + "the record was truncated by the capture (snap length) or is damaged."
        case let .eventLengthMismatch(p, declared, actual):
            return "HCI event at \(p) has \(actual) parameter bytes but declares "
                + "\(declared.map(String.init) ?? "none (shorter than 2 bytes)"). The event is skipped."
        case let .continuationWithoutStart(p, h, d):
            return "ACL continuation fragment at \(p) (handle 0x\(hexString(h, uppercase: true)), \(d)) has no frame to continue: "
                + "the start fragment was lost and the fragment is dropped. " + lost
        case let .aclFragmentMissing(p, h, d, start, expected, received):
            return "ACL fragment missing: the L2CAP frame that started at \(start) (handle 0x\(hexString(h, uppercase: true)), \(d)) had "
                + "\(received) of \(expected) bytes when a new frame started at \(p). The incomplete frame is dropped. " + lost
        case let .l2capLengthMismatch(p, h, d, start, expected, received):
            return "L2CAP length mismatch at \(p) (handle 0x\(hexString(h, uppercase: true)), \(d)): the frame that started at \(start) "
                + "declares \(expected) bytes but its fragments carry \(received). The frame is dropped. "
                + "The capture is damaged or a fragment of another frame was mixed in."
        case let .incompleteFrame(p, h, d, start, expected, received):
            let when = p.map { "the link went down at \($0)" } ?? "the capture ended"
            return "Incomplete L2CAP frame: the frame that started at \(start) (handle 0x\(hexString(h, uppercase: true)), \(d)) had "
                + "\(received) of \(expected) bytes when \(when). The frame is dropped. " + lost
        case let .emptyATTPDU(p, h, d):
            return "Empty ATT PDU at \(p) (handle 0x\(hexString(h, uppercase: true)), \(d)): an L2CAP frame on CID 0x0004 carried no "
                + "bytes. It is skipped; the sender is not following the spec."
        }
    }
}

