/// An argument of a D-Bus message, of the three basic types the agent API uses.
package enum DBusArgument: Sendable, Hashable {
    /// `u`.
    case uint32(UInt32)
    /// `s`.
    case string(String)
    /// `o`.
    case objectPath(String)

    /// The D-Bus type code.
    var typeCode: Int32 {
        switch self {
        case .uint32: 117  // 'u'
        case .string: 115  // 's'
        case .objectPath: 111  // 'o'
        }
    }
}

/// One D-Bus message built or received through libdbus, released when the value goes. Not
/// thread-safe: one owner at a time.
package final class DBusMessage {
    /// What a message is.
    package enum Kind: Int32, Sendable {
        /// A method call.
        case methodCall = 1
        /// The return of a method call.
        case methodReturn = 2
        /// An error answering a method call.
        case error = 3
        /// A signal.
        case signal = 4
    }

    let library: LibDBus
    let pointer: OpaquePointer

    /// Takes over a reference to `pointer`.
    init(adopting pointer: OpaquePointer, library: LibDBus) {
        self.pointer = pointer
        self.library = library
    }

    deinit { library.messageUnref(pointer) }

    /// A method call of `interface.member` on `path` of `destination` with `arguments`; `nil` when
    /// libdbus refuses a name or is out of memory.
    package static func methodCall(_ library: LibDBus, destination: String?, path: String, interface: String, member: String,
                                   arguments: [DBusArgument] = []) -> DBusMessage? {
        guard let raw = library.newMethodCall(destination, path, interface, member) else { return nil }
        let message = DBusMessage(adopting: raw, library: library)
        return message.append(arguments) ? message : nil
    }

    /// The return of this method call, carrying `arguments`.
    package func methodReturn(_ arguments: [DBusArgument] = []) -> DBusMessage? {
        guard let raw = library.newMethodReturn(pointer) else { return nil }
        let message = DBusMessage(adopting: raw, library: library)
        return message.append(arguments) ? message : nil
    }

    /// The error `name` (`org.bluez.Error.Rejected`) answering this method call.
    package func errorReply(_ name: String, _ text: String) -> DBusMessage? {
        library.newError(pointer, name, text).map { DBusMessage(adopting: $0, library: library) }
    }

    /// The message's kind; `nil` for a kind libdbus added later.
    package var kind: Kind? { Kind(rawValue: library.messageType(pointer)) }
    /// The object path (calls and signals).
    package var path: String? { library.messagePath(pointer).map { String(cString: $0) } }
    /// The interface (calls and signals).
    package var interface: String? { library.messageInterface(pointer).map { String(cString: $0) } }
    /// The method or signal name.
    package var member: String? { library.messageMember(pointer).map { String(cString: $0) } }
    /// The unique bus name of the sender (set by the bus).
    package var sender: String? { library.messageSender(pointer).map { String(cString: $0) } }
    /// The error name of an error.
    package var errorName: String? { library.messageErrorName(pointer).map { String(cString: $0) } }
    /// Whether the caller said it wants no reply.
    package var noReplyExpected: Bool { library.messageNoReply(pointer) != 0 }

    /// Sets the sender and the serial, as the bus and the sending connection do for a message that
    /// arrives (tests build arriving messages by hand; libdbus answers only a message with a serial).
    package func setArrived(sender: String, serial: UInt32) {
        _ = library.messageSetSender(pointer, sender)
        library.messageSetSerial(pointer, serial)
    }

    /// The leading arguments of the three basic types, up to the first of another type.
    package var arguments: [DBusArgument] {
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
        defer { iterator.deallocate() }
        var out: [DBusArgument] = []
        guard library.iterInit(pointer, iterator) != 0 else { return out }
        repeat {
            switch library.iterArgType(iterator) {
            case 117:
                var value: UInt32 = 0
                library.iterGetBasic(iterator, &value)
                out.append(.uint32(value))
            case 115, 111:
                let type = library.iterArgType(iterator)
                var value: UnsafePointer<CChar>?
                library.iterGetBasic(iterator, &value)
                let text = value.map { String(cString: $0) } ?? ""
                out.append(type == 115 ? .string(text) : .objectPath(text))
            default:
                return out
            }
        } while library.iterNext(iterator) != 0
        return out
    }

    /// Appends `arguments`; false when libdbus refuses one (an invalid object path, no memory).
    func append(_ arguments: [DBusArgument]) -> Bool {
        guard !arguments.isEmpty else { return true }
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
        defer { iterator.deallocate() }
        library.iterInitAppend(pointer, iterator)
        for argument in arguments {
            let appended: UInt32
            switch argument {
            case .uint32(var value):
                appended = library.iterAppendBasic(iterator, argument.typeCode, &value)
            case .string(let text), .objectPath(let text):
                // libdbus takes the address of a `const char *`.
                appended = text.withCString { c in
                    var chars: UnsafePointer<CChar>? = c
                    return library.iterAppendBasic(iterator, argument.typeCode, &chars)
                }
            }
            guard appended != 0 else { return false }
        }
        return true
    }
}
