#ifndef IMGBENCH_CURL_LOOP_INTERNAL_H
#define IMGBENCH_CURL_LOOP_INTERNAL_H

// What curl_loop.c (the loop, its multis and their timers) and curl_loop_sockets.c (its epoll
// registrations of curl's sockets) share; not for Swift.

#include "cshims.h"

#include <stdint.h>

typedef struct ib_curl_slot {
    CURLM *multi;
    int64_t deadline_ms;   // curl's next timeout for this multi, -1 for none
    int touched;           // driven in the current round (reported once)
    int index;             // its place in the loop's slots
} ib_curl_slot;

// The epoll registration of one descriptor, kept by its number for as long as the loop lives. A
// keep-alive connection between loads stays registered: curl says "remove" when its transfer ends
// and "watch" when the next one takes the connection, and answering both with epoll_ctl cost two
// system calls a request (1.95 a request in a --clients 100 run, about 5% of the network
// thread's time).
typedef struct {
    ib_curl_slot *slot;    // the multi whose transfer last wanted it
    curl_socket_t fd;
    uint32_t events;       // what epoll watches it for; 0: not registered, as far as the loop knows
    int watched;           // curl wants its events; 0: idle in a pool (left registered) or closed
    int opened;            // opened by open_socket and not closed since: a registration it has is
                           // still its own (a closed descriptor leaves the epoll set with it)
    uint32_t generation;   // bumped as a socket of this number opens or closes; an event carries
                           // the one it was registered in, so one for a closed socket still in
                           // the batch never reaches the next socket given the same number
} ib_curl_socket;

// An event's data: the descriptor and its record's generation; all ones for the wake-up fd.
static const uint64_t wake_event = UINT64_MAX;
static inline uint64_t event_data(const ib_curl_socket *entry) {
    return (uint64_t)entry->generation << 32 | (uint32_t)entry->fd;
}

struct ib_curl_loop {
    int epoll_fd;
    int wake_fd;
    ib_curl_slot **slots;
    int slot_count;
    int slot_capacity;
    ib_curl_socket **sockets;  // by descriptor number
    int socket_capacity;
    uint64_t epoll_changes;    // epoll_ctl calls made for curl's sockets (read by tests)
    int check_requested;       // ib_curl_loop_check_registrations asked for a check (atomic)
    int check_result;          // its answer, -2 until the loop thread gave it (atomic)
};

typedef struct {
    ib_curl_loop *loop;
    ib_curl_slot *slot;
} ib_curl_callback_data;

// curl's socket callback for every attached multi (curl_loop_sockets.c).
int ib_curl_loop_on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp);
// Takes the socket out of the epoll set, if the loop registered it.
void ib_curl_loop_unwatch(ib_curl_loop *loop, ib_curl_socket *entry);
// Registrations where the loop and the kernel's epoll set disagree (the loop's thread; -1 if the
// set's /proc entry cannot be read).
int ib_curl_loop_registration_mismatches(ib_curl_loop *loop);

#endif
