"""Applications on top of the sockets: a writer, a reader, and a request/response pair.

A send or recv call costs the host's per-call and per-byte CPU time on the application's CPU; a
blocking send copies what fits and waits for the rest. BSD ``sosend`` resumes when at least
``min(remaining, low-water mark)`` bytes of space are free; Linux ``tcp_sendmsg`` fills the buffer and
sleeps until a third of it is free (``TcpOptions.writer_wakes_at_third``).
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Protocol

from .endpoint import TcpEndpoint
from .kernel import Kernel

__all__ = ["Process", "Writer", "Reader", "RequestResponse"]

SEND_LOWAT_BYTES = 2048
"""4.4BSD ``so_snd.sb_lowat`` default: a blocked writer wakes when this much space is free."""

MAX_CALLS_PER_INSTANT = 4096
"""System calls an application makes at one simulated instant before it yields to the event loop.

On a host whose calls cost no time (the ideal host) a writer of tiny messages into a huge buffer would
otherwise loop at one instant for as long as the buffer has room, with no event for the budgets (wall
time, events, Ctrl-C) to be checked at. Resuming through the event queue keeps the order of the calls and
charges one event per this many calls."""


def _own(ep: TcpEndpoint, done_s: float, cpu: int, from_s: float) -> None:
    """A call of ``ep``'s application runs until ``done_s`` on ``cpu``: with ``TcpOptions.owner_backlog`` it owns
    the socket from ``from_s`` (``lock_sock``) to then, and what arrives meanwhile joins the backlog it runs
    (``HostRuntime._to_owner``)."""
    if ep.owner_backlog:
        ep.owner_from_s = from_s
        ep.owner_until_s = ep.owner_call_end_s = done_s
        ep.owner_cpu = cpu


def _returns_later(ep: TcpEndpoint, kernel: Kernel, resume: Callable[[], None]) -> bool:
    """The call's own work is done, but the backlog it took on is not (``__release_sock`` runs it before the call
    returns): ``resume`` when it is."""
    until = ep.owner_until_s
    if until > kernel.now_s:
        kernel.call_at(until, resume)
        return True
    return False


class WakingHost(Protocol):
    """What a :class:`Process` asks of its host (:class:`tcpsim.components.host.HostRuntime`)."""

    wakes_late: bool

    def charge_wake(self, last_woken_s: float) -> float: ...

    def wake_delay_s(self, idle_s: float) -> float: ...


class Process:
    """The process a reader or writer runs in: one each, or one for every stream of a host where the workload's
    streams share it (``Workload.one_process``: iperf3 before 3.16, one thread and one ``select`` over every
    socket). It sleeps once none of its streams can go on; the first that can wakes it, the wake-up's cost on the
    waking CPU (:meth:`HostRuntime.charge_wake`) and the process as late as its idle gap makes it
    (:meth:`HostRuntime.wake_delay_s`); until then no stream of it runs, and after, none waits for a wake-up.

    A process that is ``one_thread`` makes one call at a time: a member that could call while another's call (with the
    backlog it runs) has not returned queues for the thread, and a member whose call returns lets the queued ones go
    first (iperf3 before 3.16: ``iperf_run_client``'s loop serves each ready socket in turn from one thread)."""

    __slots__ = ("host", "members", "waiting", "asleep", "blocked_since_s", "woken_s", "runs_from_s", "one_thread",
                 "holder", "ready")

    def __init__(self, host: WakingHost, one_thread: bool = False) -> None:
        self.host = host
        self.one_thread = one_thread
        self.holder: object | None = None
        """The member whose call the thread is in (one thread only; None: none)."""
        self.ready: deque[Callable[[], None]] = deque()
        """Members queued for the thread, in order: each one's resumption."""
        self.members = 0
        self.waiting = 0
        """Members that found they could not go on and have not gone on since."""
        self.asleep = False
        """All its members wait (a wake-up that ends it costs the waking CPU ``CpuCost.wake_cost_s``)."""
        self.blocked_since_s = -1.0
        """When it last fell asleep (-1: it has not since it ran, or its host wakes it on time)."""
        self.woken_s = -1.0
        """When a wake-up last ended a sleep (-1: none yet); what the next costs depends on the time since."""
        self.runs_from_s = -1.0
        """When its last late wake-up lets it run: a member that can go on earlier waits until then."""

    def join(self, waiting: bool) -> None:
        """One more member; a reader joins waiting (nothing to read yet), with the process blocked since time 0."""
        self.members += 1
        if waiting:
            self.waiting += 1
            if self.host.wakes_late and self.waiting == self.members:
                self.blocked_since_s = 0.0

    def block(self, now_s: float) -> None:
        """A member that could go on no longer can (it has just set its own ``waiting``)."""
        self.waiting += 1
        if self.waiting >= self.members:
            self.asleep = True
            if self.host.wakes_late and self.blocked_since_s < 0.0:
                self.blocked_since_s = now_s

    def wake(self, now_s: float) -> float:
        """A waiting member can go on at ``now_s``: how much later it runs (0: now)."""
        self.waiting -= 1
        if self.asleep:
            self.asleep = False
            self.woken_s = self.host.charge_wake(self.woken_s)
        if self.blocked_since_s >= 0.0:
            late = self.host.wake_delay_s(now_s - self.blocked_since_s)
            self.blocked_since_s = -1.0
            self.runs_from_s = now_s + late
            return late
        return self.runs_from_s - now_s if self.runs_from_s > now_s else 0.0

    def queues(self, member: object, resume: Callable[[], None]) -> bool:
        """Whether ``member`` must wait for the thread, another member's call not yet returned; if so ``resume`` runs
        when its turn comes."""
        holder = self.holder
        if holder is None or holder is member:
            return False
        self.ready.append(resume)
        return True

    def takes(self, member: object) -> None:
        """``member`` has begun a call (one thread: the thread is in it until :meth:`returns`)."""
        if self.one_thread:
            self.holder = member

    def returns(self, member: object, resume: Callable[[], None]) -> bool:
        """``member``'s call has returned. If members queue for the thread the first goes now and ``member`` queues
        behind them (``resume`` on its turn): True. False: ``member`` goes on."""
        if self.holder is not member:
            return False
        self.holder = None
        if not self.ready:
            return False
        self.ready.append(resume)
        self.ready.popleft()()
        return True

    def pass_on(self) -> None:
        """A member resumed from the queue made no call: the next queued one gets the thread."""
        if self.holder is None and self.ready:
            self.ready.popleft()()


class _Member:
    """What a writer and a reader do alike as members of a :class:`Process`: take their turn for its thread."""

    busy: bool
    process: Process
    _turn: Callable[[], None]
    """:meth:`_thread_free`, bound once: binding a method makes an object each time, and a member passes it on at each
    call's end (:meth:`_call_returned`) and each try to call (:meth:`Process.queues`)."""
    _go_on: Callable[[], None]
    """What resumes the member after its call (bound once, as :attr:`_turn`): :func:`_returns_later` schedules it."""

    def _bind(self, go_on: Callable[[], None]) -> None:
        """Bind the callbacks passed on at every call's end once (:attr:`_turn`, :attr:`_go_on`)."""
        self._turn = self._thread_free
        self._go_on = go_on

    def kick(self) -> None:
        raise NotImplementedError

    def _call_returned(self) -> bool:
        """The member's call has returned: True if the thread went to a member queued for it (this one waits its
        turn, busy until then); False: this one goes on, not busy."""
        self.busy = True  # queued behind the members waiting for the thread, which may hand it straight back
        if self.process.returns(self, self._turn):
            return True
        self.busy = False
        return False

    def _thread_free(self) -> None:
        """Its turn for the process's one thread (:meth:`Process.returns`)."""
        self.busy = False
        self.kick()
        self.process.pass_on()


class Writer(_Member):
    """Calls ``send(write_bytes)`` back to back (or paced, or on demand for request/response)."""

    def __init__(self, ep: TcpEndpoint, write_bytes: int, cpu: int, interval_s: float | None = None,
                 total_bytes: int | None = None, calls: float = float("inf"), process: Process | None = None) -> None:
        self.ep = ep
        self.kernel = ep.kernel
        self.host = ep.host
        self.write_bytes = write_bytes
        self.cpu = cpu
        self.interval_s = interval_s
        self.left_total = total_bytes if total_bytes is not None else float("inf")
        self.calls_left = calls
        self.remaining = 0
        self.busy = False
        self.lowat = min(SEND_LOWAT_BYTES, max(ep.sndbuf // 2, 1))
        self.wake_at_third = ep.opts.writer_wakes_at_third
        self.whole_skbs = ep.opts.writer_copies_whole_skbs
        self.pass_bytes = ep.opts.maxpsz_segments * ep.mss
        self.next_call_s = 0.0
        self.calls = 0
        self.process = process if process is not None else Process(ep.host)
        self.process.join(False)
        self.waiting = False
        """Blocked for room, and not gone on since (its process sleeps once every member waits)."""
        self._done_lane = self.kernel.lane(self._done)
        """The end of each call (one at a time, so in order): the callback bound once, not per call."""
        self._bind(self._paced)
        ep.on_writable = self.kick

    def start(self) -> None:
        self.kick()

    def add_calls(self, n: int) -> None:
        """Request/response: allow ``n`` more send calls."""
        self.calls_left += n
        self.kick()

    def kick(self) -> None:
        """Issue the next pieces of work while the writer is idle and has something to do."""
        calls = 0
        proc = self.process
        while not self.busy:
            if proc.queues(self, self._turn):
                self.busy = True
                return
            piece = self._next_chunk()
            if piece is None:
                return
            chunk, new_call = piece
            # Solaris strwrite moves maxpsz x MSS into TCP per pass (Sun blueprint, FIGURE 2): every pass
            # after the first of the call is one more trip into the kernel.
            extra = max(-(-chunk // self.pass_bytes) - new_call, 0) if self.pass_bytes else 0
            done = self.host.syscall(self.cpu, chunk, new_call, extra)
            if done > self.kernel.now_s:
                self.busy = True
                proc.takes(self)
                _own(self.ep, done, self.cpu, self.kernel.now_s)  # tcp_sendmsg holds the socket over the whole call
                self._done_lane.call_at(done, chunk)
                return
            sent = self.ep.data_segments
            self._commit(chunk)
            if self.remaining == 0 and self.ep.data_segments == sent:
                self._absorb_writes()
            calls += 1
            if calls >= MAX_CALLS_PER_INSTANT:
                self.kernel.check_wall()  # a burst is slow work: read the clock whatever the event count
                self.busy = True
                self.kernel.call_at(self.kernel.now_s, self._paced)
                return

    def _absorb_writes(self) -> None:
        """Hand over at once the whole writes TCP would only queue, on a host where a call costs nothing.

        After a write that sent nothing, with a full segment or more unsent, ``tcp_output`` (RFC 1122
        §4.2.3.4 as :func:`~tcpsim.protocol.nagle.may_send_bytes` writes it) sends nothing for further
        bytes either: the window, not the queue, holds it. So the calls that fit (the free space; for a
        Linux writer of whole skbs, what :meth:`_whole_skb_room` says it copies), each costing nothing, end
        exactly as they would one by one; they are counted as calls all the same. Not for Solaris's
        whole-message queue, nor during retransmission or SACK recovery, nor where ``tcp_tso_should_defer``
        may be what holds the data (more of it could let a full aggregate go).
        """
        ep = self.ep
        host = self.host
        if (host.per_syscall_s or host.per_byte_copy_s or ep.whole_messages or ep._sack_rec
                or ep.snd_nxt != ep.snd_max or ep.written - ep.snd_nxt < ep.mss or self.interval_s is not None):
            return
        if ep._defer_rule and min(ep.peer_wnd, ep.cc.cwnd) - (ep.snd_nxt - ep.snd_una) >= ep.mss:
            return
        w = self.write_bytes
        space = ep.send_space()
        n = (self._whole_skb_room(space) if self.whole_skbs else space) // w
        if n > self.calls_left:
            n = int(self.calls_left)
        if n * w > self.left_total:
            n = int(self.left_total // w)
        if n <= 0:
            return
        self.calls_left -= n
        self.calls += n
        self.left_total -= n * w
        ep.app_write(n * w, self.cpu)

    def _next_chunk(self) -> tuple[int, bool] | None:
        ep = self.ep
        new_call = False
        if self.remaining == 0:
            if self.calls_left <= 0 or self.left_total <= 0:
                ep.set_writer_blocked(False)
                return None
            now = self.kernel.now_s
            if self.interval_s is not None and now < self.next_call_s:
                self.busy = True
                self.kernel.call_at(self.next_call_s, self._paced)
                return None
            self.remaining = int(min(self.write_bytes, self.left_total))
            self.calls_left -= 1
            self.calls += 1
            if self.interval_s is not None:
                self.next_call_s = max(now, self.next_call_s) + self.interval_s
            new_call = True
        space = ep.send_space()
        if self.whole_skbs:
            chunk = self._whole_skbs(space)
        else:
            chunk = self.remaining if self.remaining < space else space
        if self.wake_at_third:
            blocked = chunk <= 0 or (ep.writer_blocked and 3 * space < ep.sndbuf)
        else:
            blocked = chunk < self.remaining and chunk < self.lowat
        now = self.kernel.now_s
        if blocked:
            ep.set_writer_blocked(True)
            if not self.waiting:
                self.waiting = True
                self.process.block(now)
            if new_call:
                self.host.syscall(self.cpu, 0, True)
            return None
        if self.waiting:
            self.waiting = False
            late = self.process.wake(now)
            if late > 0.0:
                self.busy = True
                self.kernel.call_at(now + late, self._paced)
                return None
        ep.set_writer_blocked(False)
        return chunk, new_call

    def _whole_skbs(self, space: int) -> int:
        """Bytes one Linux ``send`` of the remaining bytes copies now (:meth:`_whole_skb_room`)."""
        chunk = self._whole_skb_room(space)
        return chunk if chunk < self.remaining else self.remaining

    def _whole_skb_room(self, space: int) -> int:
        """Bytes a Linux writer may copy now (``tcp_sendmsg_locked``): the last unsent skb filled to the size
        goal whatever the buffer holds, then whole new skbs of it while the buffer has room
        (``sk_stream_memory_free``), each charged its truesize overhead as it starts (``tcp_stream_alloc_skb``).
        Each byte copied takes one from this, so writes in a row copy it down to the end."""
        ep = self.ep
        goal = ep.skb_size_goal()
        tail = (ep.written - ep.snd_nxt) % goal
        chunk = goal - tail if tail else 0
        room = space - chunk
        if room > 0:
            chunk += -(-room // (goal + ep.tx_skb_overhead)) * goal
        return chunk

    def _paced(self) -> None:
        if _returns_later(self.ep, self.kernel, self._go_on):
            return
        if not self._call_returned():
            self.kick()

    def _commit(self, chunk: int) -> None:
        self.remaining -= chunk
        self.left_total -= chunk
        self.ep.app_write(chunk, self.cpu)

    def _done(self, chunk: int) -> None:
        self.busy = False
        self._commit(chunk)
        self.busy = True
        self._paced()


class Reader(_Member):
    """Calls ``recv(read_bytes)`` whenever data is waiting; counts what the application got. Without
    ``read_bytes`` a read asks for the receive window as it stands when the reader is built (before a Linux
    receiver measures its ratio, so possibly less than the window it offers later)."""

    def __init__(self, ep: TcpEndpoint, read_bytes: int | None, cpu: int,
                 on_data: Callable[[int], None] | None = None, process: Process | None = None) -> None:
        self.ep = ep
        self.kernel = ep.kernel
        self.host = ep.host
        self.read_bytes = read_bytes or ep.rcv_window_max
        self.cpu = cpu
        self.busy = False
        self.delivered_bytes = 0
        self.reads = 0
        self.last_read_s = 0.0
        """When the application last got data (the engine aligns the measurement window on it)."""
        self.on_data = on_data
        self.process = process if process is not None else Process(ep.host)
        self.process.join(True)
        self.waiting = True
        """Found nothing to read, and has read nothing since (its process sleeps once every member waits)."""
        self._done_lane = self.kernel.lane(self._done)
        """The end of each read (one at a time, so in order): the callback bound once, not per read."""
        self._bind(self._resume)
        self._copy_lane = self.kernel.lane(self._copy) if ep.opts.read_length_at_copy else None
        """Where a read's length is fixed when its copy begins (``TcpOptions.read_length_at_copy``): the end of each
        read's entry."""
        ep.on_readable = self.kick

    def kick(self) -> None:
        calls = 0
        proc = self.process
        while not self.busy:
            if proc.queues(self, self._turn):
                self.busy = True
                return
            avail = self.ep.rcv_readable
            if avail <= 0:
                if not self.waiting:
                    self.waiting = True
                    self.process.block(self.kernel.now_s)
                return
            if self.waiting:
                self.waiting = False
                now = self.kernel.now_s
                late = self.process.wake(now)
                if late > 0.0:
                    self.busy = True
                    self.kernel.call_at(now + late, self._resume)
                    return
            chunk = avail if avail < self.read_bytes else self.read_bytes
            copy_lane = self._copy_lane
            if copy_lane is not None:
                entered = self.host.syscall(self.cpu, 0, True, receive=True)
                if entered > self.kernel.now_s:
                    self.busy = True
                    proc.takes(self)
                    copy_lane.call_at(entered)
                    return
                done = self.host.syscall(self.cpu, chunk, False, receive=True)
            else:
                done = self.host.syscall(self.cpu, chunk, True, receive=True)
            if done > self.kernel.now_s:
                self.busy = True
                proc.takes(self)
                # tcp_recvmsg takes the socket for its copy, after the call's entry (and the tool's poll) ran unlocked
                _own(self.ep, done, self.cpu, done - chunk * self.host.per_byte_copy_rx_s)
                self._done_lane.call_at(done, chunk)
                return
            self._commit(chunk)
            calls += 1
            if calls >= MAX_CALLS_PER_INSTANT:  # see MAX_CALLS_PER_INSTANT
                self.kernel.check_wall()
                self.busy = True
                self.kernel.call_at(self.kernel.now_s, self._resume)
                return

    def _copy(self) -> None:
        """The call's entry has run and it takes the socket: it copies what the receive queue holds now, up to its
        length (Linux ``tcp_recvmsg_locked``: it walks ``sk_receive_queue`` under ``lock_sock``), and what arrives
        from now until its copy is done waits in the backlog for the call's end (a non-blocking reader does not run
        it)."""
        avail = self.ep.rcv_readable
        chunk = avail if avail < self.read_bytes else self.read_bytes
        now = self.kernel.now_s
        done = self.host.syscall(self.cpu, chunk, False, receive=True)
        if done > now:
            _own(self.ep, done, self.cpu, now)  # from lock_sock on, the queue holds what this call copies
            self._done_lane.call_at(done, chunk)
        else:
            self._done(chunk)

    def _resume(self) -> None:
        if _returns_later(self.ep, self.kernel, self._go_on):
            return
        if not self._call_returned():
            self.kick()

    def _commit(self, chunk: int) -> None:
        self.reads += 1
        self.delivered_bytes += chunk
        self.last_read_s = self.kernel.now_s
        self.ep.app_read(chunk, self.cpu)
        if self.on_data is not None:
            self.on_data(chunk)

    def _done(self, chunk: int) -> None:
        self.busy = False
        self._commit(chunk)
        self.busy = True
        self._resume()


class RequestResponse:
    """netperf TCP_RR: the client sends a request, the server answers once it has read all of it."""

    def __init__(self, client: TcpEndpoint, server: TcpEndpoint, request_bytes: int, response_bytes: int,
                 client_cpu: int, server_cpu: int) -> None:
        self.request_bytes = request_bytes
        self.response_bytes = response_bytes
        self.transactions = 0
        self._server_got = 0
        self._client_got = 0
        self.client_writer = Writer(client, request_bytes, client_cpu, calls=0)
        self.server_writer = Writer(server, response_bytes, server_cpu, calls=0)
        self.server_reader = Reader(server, None, server_cpu, on_data=self._server_data)
        self.client_reader = Reader(client, None, client_cpu, on_data=self._client_data)

    def start(self) -> None:
        self.client_writer.add_calls(1)

    def _server_data(self, size_bytes: int) -> None:
        self._server_got += size_bytes
        while self._server_got >= self.request_bytes:
            self._server_got -= self.request_bytes
            self.server_writer.add_calls(1)

    def _client_data(self, size_bytes: int) -> None:
        self._client_got += size_bytes
        while self._client_got >= self.response_bytes:
            self._client_got -= self.response_bytes
            self.transactions += 1
            self.client_writer.add_calls(1)
