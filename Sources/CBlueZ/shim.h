// Imports BlueZ's libbluetooth into Swift. Function-like macros do not import, so the few we
// need are wrapped as static inline functions here.
#pragma once
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

static inline uint16_t cbluez_htobs(uint16_t v) { return htobs(v); }
static inline uint16_t cbluez_btohs(uint16_t v) { return btohs(v); }
static inline bdaddr_t cbluez_bdaddr_any(void) { bdaddr_t a = {{0, 0, 0, 0, 0, 0}}; return a; }
