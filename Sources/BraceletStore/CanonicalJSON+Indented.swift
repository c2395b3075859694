extension CanonicalJSON {
    /// Writes `node` like ``write(_:into:)`` (same key order, numbers and escapes), indented for people
    /// in the layout of Foundation's pretty-printed `JSONEncoder`: two spaces per level, `"key" : value`,
    /// an empty container as an empty line. Documents meant to be read (exports) thus come from the
    /// same writer as the canonical bytes and differ from them only in white space.
    package static func writeIndented(_ node: Node, depth: Int = 0, into out: inout [UInt8]) {
        switch node.value {
        case .array:
            out.append(0x5B)
            out.append(0x0A)
            for (i, element) in node.elements.enumerated() {
                if i > 0 { out.append(contentsOf: [0x2C, 0x0A]) }
                indent(depth + 1, into: &out)
                writeIndented(element, depth: depth + 1, into: &out)
            }
            out.append(0x0A)
            indent(depth, into: &out)
            out.append(0x5D)
        case .object:
            out.append(0x7B)
            out.append(0x0A)
            for (n, i) in KeyOrder.shared.order(of: node.keys).enumerated() {
                if n > 0 { out.append(contentsOf: [0x2C, 0x0A]) }
                indent(depth + 1, into: &out)
                appendString(node.keys[i], to: &out)
                out.append(contentsOf: [0x20, 0x3A, 0x20])
                writeIndented(node.elements[i], depth: depth + 1, into: &out)
            }
            out.append(0x0A)
            indent(depth, into: &out)
            out.append(0x7D)
        default:
            write(node, into: &out)
        }
    }

    private static func indent(_ depth: Int, into out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(0x20, count: 2 * depth))
    }
}
