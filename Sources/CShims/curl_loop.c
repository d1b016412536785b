#include "curl_loop_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

// One thread drives the transfers of many curl multi handles (one per simulated user, so each user
// keeps connections of its own) through one epoll set: curl's socket interface
// (curl_multi_socket_action) with a socket callback that keeps epoll in step and a timer callback
// per multi. The shape is curl's hiperfifo example, for many multis at once. Used only from the
// loop's thread, but for ib_curl_loop_wakeup.

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ib_curl_loop *ib_curl_loop_new(void) {
    ib_curl_loop *loop = calloc(1, sizeof *loop);
    if (!loop) return NULL;
    loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->epoll_fd < 0 || loop->wake_fd < 0) {
        if (loop->epoll_fd >= 0) close(loop->epoll_fd);
        if (loop->wake_fd >= 0) close(loop->wake_fd);
        free(loop);
        return NULL;
    }
    loop->check_result = -2;
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = wake_event};
    epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->wake_fd, &event);
    return loop;
}

void ib_curl_loop_free(ib_curl_loop *loop) {
    if (!loop) return;
    for (int i = 0; i < loop->slot_count; i++) free(loop->slots[i]);
    free(loop->slots);
    for (int i = 0; i < loop->socket_capacity; i++) free(loop->sockets[i]);
    free(loop->sockets);
    close(loop->epoll_fd);
    close(loop->wake_fd);
    free(loop);
}

void ib_curl_loop_wakeup(ib_curl_loop *loop) {
    uint64_t one = 1;
    ssize_t written = write(loop->wake_fd, &one, sizeof one);
    (void)written;  // EAGAIN: a wake-up is already pending, which is all this asks
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    ib_curl_callback_data *data = userp;
    if (!data->slot->multi) return 0;  // detached: its cleanup may still set timers, never to run
    data->slot->deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    return 0;
}

int ib_curl_loop_attach(ib_curl_loop *loop, CURLM *multi) {
    if (loop->slot_count == loop->slot_capacity) {
        int capacity = loop->slot_capacity ? loop->slot_capacity * 2 : 16;
        ib_curl_slot **grown = realloc(loop->slots, (size_t)capacity * sizeof *grown);
        if (!grown) return -1;
        loop->slots = grown;
        loop->slot_capacity = capacity;
    }
    // The slot and the callbacks' data live together, as long as the loop.
    struct { ib_curl_slot slot; ib_curl_callback_data data; } *both = calloc(1, sizeof *both);
    if (!both) return -1;
    both->slot.multi = multi;
    both->slot.deadline_ms = -1;
    both->slot.index = loop->slot_count;
    both->data.loop = loop;
    both->data.slot = &both->slot;
    loop->slots[loop->slot_count] = &both->slot;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, ib_curl_loop_on_socket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &both->data);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &both->data);
    return loop->slot_count++;
}

void ib_curl_loop_detach(ib_curl_loop *loop, int index) {
    if (index < 0 || index >= loop->slot_count) return;
    loop->slots[index]->deadline_ms = -1;
    loop->slots[index]->multi = NULL;
}

static void touch(ib_curl_slot *slot, int *touched, int *count, int capacity) {
    if (slot->touched || *count >= capacity) return;
    slot->touched = 1;
    touched[(*count)++] = slot->index;
}

void ib_curl_loop_check_registrations(ib_curl_loop *loop) {
    __atomic_store_n(&loop->check_result, -2, __ATOMIC_RELAXED);
    __atomic_store_n(&loop->check_requested, 1, __ATOMIC_RELEASE);
    ib_curl_loop_wakeup(loop);
}

int ib_curl_loop_checked_registrations(ib_curl_loop *loop) {
    return __atomic_load_n(&loop->check_result, __ATOMIC_ACQUIRE);
}

int ib_curl_loop_run_once(ib_curl_loop *loop, int max_wait_ms, int *touched, int capacity) {
    // A plain load first: the exchange is a locked instruction, and this runs every round.
    if (__atomic_load_n(&loop->check_requested, __ATOMIC_RELAXED) && __atomic_exchange_n(&loop->check_requested, 0, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&loop->check_result, ib_curl_loop_registration_mismatches(loop), __ATOMIC_RELEASE);
    }
    int64_t now = now_ms();
    int64_t wait = max_wait_ms;
    for (int i = 0; i < loop->slot_count; i++) {
        int64_t deadline = loop->slots[i]->deadline_ms;
        if (!loop->slots[i]->multi) continue;
        if (deadline >= 0 && deadline - now < wait) wait = deadline > now ? deadline - now : 0;
    }
    enum { batch = 64 };
    struct epoll_event events[batch];
    int ready = epoll_wait(loop->epoll_fd, events, batch, (int)wait);
    if (ready < 0 && errno != EINTR) return -1;
    int count = 0;
    for (int i = 0; i < ready; i++) {
        uint64_t data = events[i].data.u64;
        if (data == wake_event) {
            uint64_t drained;
            ssize_t got = read(loop->wake_fd, &drained, sizeof drained);
            (void)got;
            continue;
        }
        curl_socket_t fd = (curl_socket_t)(uint32_t)data;
        ib_curl_socket *registered = fd < loop->socket_capacity ? loop->sockets[fd] : NULL;
        // A socket closed earlier in this batch (its number perhaps already another's), or
        // registered in a child between fork and exec: nothing to tell curl.
        if (!registered || registered->generation != (uint32_t)(data >> 32)) continue;
        ib_curl_slot *slot = registered->slot;
        if (!registered->watched || !slot || !slot->multi) {
            // Idle in curl's pool (its server closed it, most likely) or of a multi that left:
            // watched again when curl wants it, and a readable one would wake every wait.
            ib_curl_loop_unwatch(loop, registered);
            continue;
        }
        int mask = 0;
        if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
        int running = 0;
        curl_multi_socket_action(slot->multi, registered->fd, mask, &running);
        touch(slot, touched, &count, capacity);
    }
    now = now_ms();
    for (int i = 0; i < loop->slot_count; i++) {
        ib_curl_slot *slot = loop->slots[i];
        if (!slot->multi || slot->deadline_ms < 0 || slot->deadline_ms > now) continue;
        slot->deadline_ms = -1;  // the timer callback sets the next one
        int running = 0;
        curl_multi_socket_action(slot->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        touch(slot, touched, &count, capacity);
    }
    for (int i = 0; i < count; i++) loop->slots[touched[i]]->touched = 0;
    return count;
}
