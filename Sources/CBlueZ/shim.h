// Imports BlueZ's libbluetooth into Swift. Function-like macros, packed structs and enum constants
// do not import well, so the few we need are wrapped as static inline functions here.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

static inline uint16_t cbluez_htobs(uint16_t v) { return htobs(v); }
static inline uint16_t cbluez_btohs(uint16_t v) { return btohs(v); }
static inline bdaddr_t cbluez_bdaddr_any(void) { bdaddr_t a = {{0, 0, 0, 0, 0, 0}}; return a; }

/// Bytes of a bdaddr_t, least significant first (wire order).
static inline void cbluez_bdaddr_get(const bdaddr_t *a, uint8_t out[6]) { memcpy(out, a->b, 6); }
static inline bdaddr_t cbluez_bdaddr_make(const uint8_t in[6]) { bdaddr_t a; memcpy(a.b, in, 6); return a; }

/// The ATT fixed channel (CID 4) address of an LE device.
static inline struct sockaddr_l2 cbluez_l2_att_address(bdaddr_t address, uint8_t address_type) {
    struct sockaddr_l2 a;
    memset(&a, 0, sizeof(a));
    a.l2_family = AF_BLUETOOTH;
    a.l2_cid = htobs(4);
    a.l2_bdaddr = address;
    a.l2_bdaddr_type = address_type;
    return a;
}

static inline int cbluez_bind_l2(int fd, const struct sockaddr_l2 *a) {
    return bind(fd, (const struct sockaddr *)a, sizeof(*a));
}

static inline int cbluez_connect_l2(int fd, const struct sockaddr_l2 *a) {
    return connect(fd, (const struct sockaddr *)a, sizeof(*a));
}

/// Sets BT_SECURITY (1 low, 2 medium, 3 high) on an L2CAP socket.
static inline int cbluez_set_security(int fd, uint8_t level) {
    struct bt_security s;
    memset(&s, 0, sizeof(s));
    s.level = level;
    return setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &s, sizeof(s));
}

/// Installs an HCI socket filter that passes only LE Meta events.
static inline int cbluez_filter_le_meta(int fd) {
    struct hci_filter f;
    hci_filter_clear(&f);
    hci_filter_set_ptype(HCI_EVENT_PKT, &f);
    hci_filter_set_event(EVT_LE_META_EVENT, &f);
    return setsockopt(fd, SOL_HCI, HCI_FILTER, &f, sizeof(f));
}

/// 1 when the adapter is up (HCI_UP set), 0 when down, -1 (errno set) when it cannot be queried.
static inline int cbluez_adapter_is_up(int dev_id) {
    struct hci_dev_info di;
    memset(&di, 0, sizeof(di));
    if (hci_devinfo(dev_id, &di) < 0) return -1;
    return hci_test_bit(HCI_UP, &di.flags) ? 1 : 0;
}

/// Binds an HCI socket to a channel (HCI_CHANNEL_CONTROL = 3 for the management interface) of
/// device `dev` (HCI_DEV_NONE = 0xFFFF for every adapter).
static inline int cbluez_bind_hci_channel(int fd, uint16_t dev, uint16_t channel) {
    struct sockaddr_hci a;
    memset(&a, 0, sizeof(a));
    a.hci_family = AF_BLUETOOTH;
    a.hci_dev = dev;
    a.hci_channel = channel;
    return bind(fd, (const struct sockaddr *)&a, sizeof(a));
}

/// Accepts on a listening L2CAP socket; fills the peer's address bytes (wire order) and type.
static inline int cbluez_accept_l2(int fd, uint8_t peer[6], uint8_t *peer_type) {
    struct sockaddr_l2 a;
    socklen_t length = sizeof(a);
    memset(&a, 0, sizeof(a));
    int client = accept(fd, (struct sockaddr *)&a, &length);
    if (client >= 0) { fcntl(client, F_SETFD, FD_CLOEXEC); memcpy(peer, a.l2_bdaddr.b, 6); *peer_type = a.l2_bdaddr_type; }
    return client;
}
