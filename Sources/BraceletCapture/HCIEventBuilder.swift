/// Builds the few HCI event packets a generated capture needs (parameters per Bluetooth Core spec,
/// Vol 4, Part E, 7.7). Each result is an HCI event packet without H4 type byte: event code,
/// parameter length, parameters.
public enum HCIEventBuilder {
    /// LE Meta event (0x3E), subevent LE Connection Complete (0x01), status success.
    /// - Parameters:
    ///   - handle: connection handle (12 bits).
    ///   - peerAddress: 6 bytes in text order (most significant first); written little-endian.
    ///   - peerAddressIsRandom: address type 0x01 (random) or 0x00 (public).
    ///   - isCentral: role 0x00 (the capturing host is central) or 0x01 (peripheral).
    ///   - intervalUnits: connection interval in 1.25 ms units (default 24 = 30 ms).
    ///   - supervisionTimeoutUnits: in 10 ms units (default 500 = 5 s).
    public static func leConnectionComplete(handle: UInt16, peerAddress: [UInt8], peerAddressIsRandom: Bool = true,
                                            isCentral: Bool = true, intervalUnits: UInt16 = 24,
                                            supervisionTimeoutUnits: UInt16 = 500) -> [UInt8] {
        var p: [UInt8] = [0x01, 0x00]
        appendLE(&p, handle & 0x0FFF)
        p.append(isCentral ? 0x00 : 0x01)
        p.append(peerAddressIsRandom ? 0x01 : 0x00)
        p.append(contentsOf: sixBytes(peerAddress).reversed())
        appendLE(&p, intervalUnits)
        appendLE(&p, 0)  // peripheral latency
        appendLE(&p, supervisionTimeoutUnits)
        p.append(0x00)  // central clock accuracy
        return [0x3E, UInt8(p.count)] + p
    }

    /// Disconnection Complete (0x05), status success, with an HCI reason code (0x08 connection
    /// timeout, 0x13 remote user terminated, 0x16 terminated by local host).
    public static func disconnectionComplete(handle: UInt16, reason: UInt8) -> [UInt8] {
        var p: [UInt8] = [0x00]
        appendLE(&p, handle & 0x0FFF)
        p.append(reason)
        return [0x05, UInt8(p.count)] + p
    }

    /// Encryption Change (0x08), status success: encryption on (0x01, AES-CCM on LE) or off.
    public static func encryptionChange(handle: UInt16, enabled: Bool) -> [UInt8] {
        var p: [UInt8] = [0x00]
        appendLE(&p, handle & 0x0FFF)
        p.append(enabled ? 0x01 : 0x00)
        return [0x08, UInt8(p.count)] + p
    }

    /// Number Of Completed Packets (0x13) for one handle.
    public static func numberOfCompletedPackets(handle: UInt16, count: UInt16) -> [UInt8] {
        var p: [UInt8] = [0x01]
        appendLE(&p, handle & 0x0FFF)
        appendLE(&p, count)
        return [0x13, UInt8(p.count)] + p
    }

    static func appendLE(_ p: inout [UInt8], _ v: UInt16) {
        p.append(UInt8(v & 0xFF))
        p.append(UInt8(v >> 8))
    }

    static func sixBytes(_ a: [UInt8]) -> [UInt8] {
        var b = Array(a.prefix(6))
        while b.count < 6 { b.append(0) }
        return b
    }
}
