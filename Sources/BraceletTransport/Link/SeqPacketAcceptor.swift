/// Something that hands out connected sequenced-packet links one after another: a listening Unix
/// socket (``SeqPacketListener``) or an LE peripheral's ATT channel (``LEPeripheral``).
public protocol SeqPacketAcceptor: AnyObject {
    /// Waits up to `timeout` for a client; returns its connected descriptor (adopt it with
    /// ``SeqPacketSocket/init(adopting:)``) or `nil` when none came.
    func accept(timeout: Duration) throws(LinkError) -> Int32?
}

extension SeqPacketListener: SeqPacketAcceptor {}
