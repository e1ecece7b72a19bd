"""A host at run time: its CPUs, its bus, its NIC receive path, and the transmit path to the link.

Costs follow :class:`tcpsim.platform.CpuCost`; where each piece of work runs (application thread's CPU
or the interrupt CPU) follows ``CpuCost.interrupts_on_one_cpu``. An ideal host (no costs, no bus)
takes a short-cut with no events of its own.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING, Callable

from ..piecewise import from_zero, held_below, quantile_at
from ..platform import Platform
from .kernel import Kernel
from .resources import GapSchedule, LinkDirection, Server
from .segment import Segment

if TYPE_CHECKING:
    from .endpoint import TcpEndpoint

__all__ = ["HostRuntime"]


def _lasts(ep: TcpEndpoint, until_s: float, now: float) -> None:
    """A frame sent by ``ep`` over a veth without delay is taken in at once and received on the sending CPU
    before the call that sent it returns (Linux ``veth_xmit`` -> ``__netif_rx``; the ``NET_RX`` softirq runs when
    ``__dev_queue_xmit`` re-enables bottom halves, still in that call): if ``ep``'s application is inside a call
    (``TcpOptions.owner_backlog`` tells), the call lasts until ``until_s`` at least, and what comes back meanwhile
    joins its backlog (:meth:`HostRuntime._to_owner`)."""
    if ep.owner_until_s >= now and until_s > ep.owner_until_s:
        ep.owner_until_s = until_s


class HostRuntime:
    """CPUs, bus and NIC of one host, and its side of the link."""

    link_out: LinkDirection
    """This host's direction of the link; the engine sets it, and :attr:`peer`, when it wires a run."""
    peer: HostRuntime

    def __init__(self, kernel: Kernel, platform: Platform, name: str, n_streams_here: int,
                 draw: Callable[[], float] | None = None,
                 gap_draws: list[Callable[[], float]] | None = None) -> None:
        self.kernel = kernel
        self.name = name
        self.platform = platform
        cpu = platform.cpu
        self.modelled = platform.host_model_on
        self.cpus = [Server(f"{name}.cpu{i}") for i in range(cpu.n_cpus)]
        if gap_draws is not None and cpu.gaps:  # CpuCost.preempt_per_s: each CPU's own seeded draws
            for server, gap_draw in zip(self.cpus, gap_draws):
                server.set_gaps(GapSchedule(cpu.preempt_per_s, cpu.preempt_length_s, gap_draw))
        bus = platform.bus
        self.bus = Server(f"{name}.bus") if bus.clock_hz > 0 else None
        self._bus_per_transfer_s = bus.transfer_s(0)
        self._bus_per_byte_s = bus.transfer_s(1) - self._bus_per_transfer_s
        contention = 1.0 + cpu.per_stream_frac * max(n_streams_here - 1, 0)
        self.per_packet_tx_s = cpu.per_packet_tx_s * contention
        self.per_packet_rx_s = cpu.per_packet_rx_s * contention
        self.per_byte_csum_tx_s = 0.0 if platform.nic.tx_checksum_offload else cpu.per_byte_csum_s
        self.per_byte_csum_rx_s = 0.0 if platform.nic.rx_checksum_offload else cpu.per_byte_csum_s
        self.per_ack_tx_s = cpu.per_ack_tx_s
        self.per_ack_rx_s = cpu.per_ack_rx_s
        self.per_interrupt_s = cpu.per_interrupt_s
        self.per_push_s = cpu.per_push_s
        self.per_syscall_s = cpu.per_syscall_s
        self.per_syscall_rx_s = cpu.syscall_rx_s
        self.per_byte_copy_s = cpu.per_byte_copy_s
        self.per_byte_copy_rx_s = cpu.copy_rx_s
        self.irq_on_one = cpu.interrupts_on_one_cpu
        self._pre_frac = 1.0 - cpu.rx_tcp_frac
        """The share of a received frame's stack work before ``tcp_v4_rcv``'s ownership check (:meth:`_handle_split`);
        0, the whole work decided as the frame arrives."""
        self._stall_frac = cpu.wake_stall_frac if cpu.stalls and draw is not None else 0.0
        self._stall_s = cpu.wake_stall_s
        self._spread = bool(cpu.wake_latency_s and cpu.wake_latency_spread) and draw is not None
        self._draw = draw
        """Uniform draws in [0, 1) for the wake-ups' spread and stalls (``CpuCost.wake_latency_spread``,
        ``wake_stall_frac``): the run's, seeded."""
        self._wake_latency_pts = cpu.wake_latency_s
        self._wake_spread = cpu.wake_latency_spread
        self._wake_cost_pts = cpu.wake_cost_table
        self.wakes_late = bool(cpu.wake_latency_s) or self._stall_frac > 0.0
        """Whether a blocked application here runs late once it can (:meth:`wake_delay_s`)."""
        self.charges_wakes = bool(cpu.wake_cost_s)
        """Whether waking a blocked application here costs the waking CPU (``CpuCost.wake_cost_s``)."""
        self.waker: Server | None = None
        """While a delivery runs (:meth:`_deliver`, with a wake cost): the CPU doing it, which an application it
        wakes charges the wake-up's cost to."""
        self._proc_cpu: Server | None = None
        self._proc_call: TcpEndpoint | None = None
        """While a delivery runs on a veth (:meth:`_deliver`): the CPU doing it and the call it is part of, where what
        it transmits runs (Linux: the softirq that takes a segment in sends what it releases, ``tcp_data_snd_check``,
        and its ACK, ``__tcp_ack_snd_check``)."""
        nic = platform.nic
        self.backlog_limit = nic.backlog_packets
        self.rx_ring = nic.rx_ring_packets
        self.tx_ring = nic.tx_ring_packets
        self._tx_posted: deque[float] = deque()
        """When each frame on the transmit ring leaves the NIC (its descriptor is free again then)."""
        self._qdisc: deque[Segment] = deque()
        self._qdisc_wake = False
        self._last_posted: Segment | None = None
        """The frame posted last: where the path loses the next one of its GSO aggregate, it ends a piece."""
        self._ring_dma = 0
        self.ring_drops = 0
        self.coalesce_packets = nic.coalesce_packets
        self.coalesce_delay_s = nic.coalesce_delay_s
        self.backlog = 0
        self.rx_drops = 0
        self._pending: list[tuple[Segment, int]] = []
        self._irq_timer = False
        self._irq_deadline = 0.0
        self._idle_timer = nic.coalesce_idle_timer
        self._drain = nic.drain_ring
        self._handler_until = [0.0] * cpu.n_cpus
        self._rx_on_peer = False
        """Whether received frames' stack work runs on the sending host's CPUs (:meth:`receive_on_peer_cpus`)."""
        self._tx_in_call = False
        """Whether the peer receives what this host sends inside the call that sent it (:func:`_lasts`)."""
        self._rx_in_call = False
        """Whether what arrives here was received inside the peer's call that sent it (:func:`_lasts`)."""
        # Each FIFO stage's completions come due in order: one kernel lane each (Kernel.lane).
        self._to_wire_lanes = [kernel.lane(self._to_wire) for _ in self.cpus]
        self._deliver_lanes = [kernel.lane(self._deliver) for _ in self.cpus]
        self._backlog_lanes = [kernel.lane(self._run_backlog) for _ in self.cpus]
        self._owned_lanes = [kernel.lane(self._run_owned) for _ in self.cpus]
        self._dma_lane = kernel.lane(self._dma_done)
        self._arrivals = kernel.lane(self._arrive)
        self.tx_drop_filter: Callable[[Segment], bool] | None = None
        self._watching = False
        """Whether a sender here watches its segments leave (:meth:`watch_transmits`)."""
        """Fault injection (tests, teaching): a frame it returns True for is lost before the NIC takes it."""

    # --- placement -------------------------------------------------------------------------------
    def receive_on_peer_cpus(self) -> None:
        """Run the stack work of frames received here on the CPU of the host that sent them
        (:attr:`tcpsim.config.Link.rx_on_sending_cpu`: a veth pair); an ideal peer has no CPU to run it on.
        Without a delay on the way, that work is part of the call that sent the frame (:func:`_lasts`)."""
        self._rx_on_peer = self.peer.modelled
        out = self.peer.link_out
        self._rx_in_call = self.peer._tx_in_call = self._rx_on_peer and out.delay_s == 0.0 and out.relay is None

    def _rx_server(self, seg: Segment, cpu_index: int) -> Server:
        """The CPU that runs the receive work of ``seg``: this host's ``cpu_index``, or on a veth the CPU that
        transmitted it (``veth_xmit`` -> ``__netif_rx`` queues it to that CPU's backlog, whose softirq takes it in)."""
        tx_cpu = seg.tx_cpu
        if not self._rx_on_peer or tx_cpu is None:
            return self.cpus[cpu_index]
        return tx_cpu

    def irq_cpu(self, stream: int) -> int:
        """CPU that takes the NIC interrupts for ``stream``."""
        return 0 if self.irq_on_one else stream % len(self.cpus)

    def app_cpu(self, stream: int) -> int:
        """CPU that runs the application thread of ``stream`` (not its interrupt CPU when there is another)."""
        n = len(self.cpus)
        if n == 1:
            return 0
        if self.irq_on_one:
            return 1 + stream % (n - 1)
        return (stream + 1) % n

    # --- transmit ----------------------------------------------------------------------------------
    def transmit(self, seg: Segment, cpu: int) -> None:
        """Charge the stack's transmit cost on ``cpu``, then DMA over the bus and onto the link."""
        if not self.modelled:
            self._post(seg)
            return
        if seg.length:  # a segment that continues a GSO aggregate rode on its first one's stack traversal
            cost = (0.0 if seg.cont else self.per_packet_tx_s) + seg.length * self.per_byte_csum_tx_s
        else:
            cost = self.per_ack_tx_s
        kernel = self.kernel
        now = kernel.now_s
        server = self._proc_cpu
        call = self._proc_call
        if server is None:
            server = self.cpus[cpu]
            call = seg.dst.peer
        seg.tx_cpu = server
        seg.tx_call = call
        done = server.run(now, cost) if cost > 0.0 else now
        if self._tx_in_call and call is not None:
            _lasts(call, done, now)
        # One connection's segments reach the driver queue in the order TCP sent them: the socket lock
        # serializes its output even when the work of two segments runs on two CPUs at once.
        dst = seg.dst
        last = dst.tx_order_s
        if done < last:
            done = last
        dst.tx_order_s = done
        if done > now or last >= now:  # an earlier segment may still wait to be released at ``now``
            self._to_wire_lanes[cpu].call_at(done, seg)
        else:
            self._to_wire(seg)

    def _to_wire(self, seg: Segment) -> None:
        """The driver posts ``seg`` on the transmit ring, or the OS queues it while the ring is full.

        A descriptor is busy from posting until its frame has left the NIC, so the NIC's transmit DMA can
        run at most ``Nic.tx_ring_packets`` frames ahead of the wire and cannot hold the bus against
        received frames for longer than that. The OS queue and the ring together hold at most
        ``Link.queue_packets`` frames; one more is dropped, as a full ``txqueuelen`` does.
        """
        if not self._qdisc and self._ring_has_room():
            self._post(seg)
            return
        limit = self.link_out.queue_packets
        if limit is not None and self.tx_ring + len(self._qdisc) > limit:
            self.link_out.drops += 1
            if self._watching:
                self._tx_completed(seg, self.kernel.now_s)
            return
        self._qdisc.append(seg)
        self._wake_qdisc()

    def _ring_has_room(self) -> bool:
        """Whether a descriptor is free, once those of frames already on the wire are reclaimed."""
        posted = self._tx_posted
        if len(posted) < self.tx_ring:
            return True
        now = self.kernel.now_s
        while posted and posted[0] <= now:
            posted.popleft()
        return len(posted) < self.tx_ring

    def _wake_qdisc(self) -> None:
        if not self._qdisc_wake:
            self._qdisc_wake = True
            self.kernel.call_at(self._tx_posted[0], self._restart_queue)

    def _restart_queue(self) -> None:
        """A descriptor is free again (the driver's transmit clean-up): post what waits in the OS queue."""
        self._qdisc_wake = False
        qdisc = self._qdisc
        while qdisc and self._ring_has_room():
            self._post(qdisc.popleft())
        if qdisc:
            self._wake_qdisc()

    def _post(self, seg: Segment) -> None:
        """DMA ``seg`` over the bus and serialize it onto the link."""
        if self.tx_drop_filter is not None and self.tx_drop_filter(seg):
            if self._watching:
                self._tx_completed(seg, self.kernel.now_s)
            if seg.length:
                self._lost(seg)
            return
        kernel = self.kernel
        now = kernel.now_s
        ready = now
        if self.bus is not None:
            ready = self.bus.run(now, self._bus_per_transfer_s + seg.frame_bytes * self._bus_per_byte_s)
        link = self.link_out
        busy_s = link.busy_s
        arrival = link.send(now, ready, seg.wire_s, seg.frame_bytes, seg.dst.stream if seg.length else -1, seg.length,
                            seg.cont)
        # The frame is the sender's until it has left the link (a frame the full link queue refused, at once);
        # through the lab's delay line only until it enters the middle namespace (ip_rcv_core -> skb_orphan),
        # ahead of the tbf there.
        left_s = ready if link.relay is not None else link.free_at if link.busy_s != busy_s else now
        if self.modelled and link.busy_s != busy_s:
            self._tx_posted.append(left_s)  # its descriptor is busy until then
        if self._watching:
            self._tx_completed(seg, left_s)
        if arrival is not None:
            call = seg.tx_call
            if self._tx_in_call and not link.held and call is not None:
                _lasts(call, arrival, now)
            self._arrivals.call_at(arrival, seg)
            if seg.length:
                self._last_posted = seg
        elif seg.length:
            self._lost(seg)

    def _lost(self, seg: Segment) -> None:
        """The path lost ``seg``: if it continued a GSO aggregate carried whole, the frame before it ends a piece of
        its own (the lab relay's ``cut``; the receiver takes and ACKs that piece as one skb)."""
        prev = self._last_posted
        if seg.cont and prev is not None and prev.more and prev.dst is seg.dst:
            prev.more = False
        self._last_posted = None

    def _arrive(self, seg: Segment) -> None:
        """The frame's last bit reached the peer host; an ideal receiver hands the segment straight to TCP."""
        if self.peer.modelled:
            self.peer.receive(seg)
        else:
            seg.dst.on_segment(seg, 0)

    def watch_transmits(self, dst: TcpEndpoint, done: Callable[[int], None]) -> None:
        """Call ``done(payload bytes)`` whenever a data segment to ``dst`` leaves this host (its frame is off the wire,
        or dropped): the sender's transmit completion, for Linux autocorking and TCP small queues."""
        dst.tx_watch = self.kernel.lane(done)
        self._watching = True

    def _tx_completed(self, seg: Segment, at_s: float) -> None:
        """Tell a watching sender that a data segment of its has left the host at ``at_s``."""
        watch = seg.dst.tx_watch
        if watch is not None and seg.length:
            watch.call_at(at_s, seg.length)

    # --- receive -----------------------------------------------------------------------------------
    def receive(self, seg: Segment) -> None:
        """A frame has fully arrived from the link."""
        if not self.modelled:
            seg.dst.on_segment(seg, 0)
            return
        if self._ring_dma + len(self._pending) >= self.rx_ring:
            # Every descriptor holds a frame no interrupt has yet handed to the driver: the NIC drops
            # this one (``rx_no_buffer``); coalescing more frames than the ring holds provokes it.
            self.ring_drops += 1
            return
        self._ring_dma += 1
        if self.bus is not None:
            kernel = self.kernel
            done = self.bus.run(kernel.now_s, self._bus_per_transfer_s + seg.frame_bytes * self._bus_per_byte_s)
            self._dma_lane.call_at(done, seg)
        else:
            self._dma_done(seg)

    def _dma_done(self, seg: Segment) -> None:
        self._ring_dma -= 1
        if self.backlog >= self.backlog_limit:
            self.rx_drops += 1
            return
        self.backlog += 1
        cpu = 0 if self.irq_on_one else seg.dst.stream % len(self.cpus)  # irq_cpu(), inlined: hot path
        now = self.kernel.now_s
        if self._drain and now < self._handler_until[cpu]:
            # The handler of an earlier interrupt is still working through the ring: it takes this
            # frame too, and the NIC raises no interrupt for it.
            self._handle(seg, cpu, now)
            return
        if self.coalesce_delay_s <= 0.0 and not self._pending:  # an interrupt for this frame alone
            if self.per_interrupt_s:
                self.cpus[cpu].run(now, self.per_interrupt_s)
            self._handle(seg, cpu, now)
            return
        self._pending.append((seg, cpu))
        if len(self._pending) >= self.coalesce_packets:
            self._interrupt()
            return
        if self._idle_timer or not self._irq_timer:
            self._irq_deadline = now + self.coalesce_delay_s
        if not self._irq_timer:
            self._irq_timer = True
            self.kernel.call_at(self._irq_deadline, self._irq_timeout)

    def _irq_timeout(self) -> None:
        self._irq_timer = False
        if not self._pending:
            return
        if self.kernel.now_s < self._irq_deadline - 1e-12:  # a packet timer pushed back by later frames
            self._irq_timer = True
            self.kernel.call_at(self._irq_deadline, self._irq_timeout)
            return
        self._interrupt()

    def _interrupt(self) -> None:
        pending, self._pending = self._pending, []
        kernel = self.kernel
        now = kernel.now_s
        cpu_index = pending[0][1]
        server = self.cpus[cpu_index]
        if self.per_interrupt_s:
            server.run(now, self.per_interrupt_s)
        for seg, cpu_index in pending:
            self._handle(seg, cpu_index, now)

    def _handle(self, seg: Segment, cpu_index: int, now: float) -> None:
        """Queue the driver and stack work for one received frame on ``cpu_index``."""
        # inside a GSO aggregate taken whole the stack runs once, for its last segment (netif_receive_skb)
        cost = ((0.0 if seg.more else self.per_packet_rx_s) + seg.length * self.per_byte_csum_rx_s if seg.length
                else self.per_ack_rx_s)
        dst = seg.dst
        if self._pre_frac > 0.0:
            self._handle_split(seg, cpu_index, now, cost)
            return
        if dst.owner_until_s > now >= dst.owner_from_s:
            self._to_owner(seg, dst, cost, now)
            return
        done = self._rx_server(seg, cpu_index).run(now, cost)
        self._taken_in(seg, cpu_index, now, done)

    def _handle_split(self, seg: Segment, cpu_index: int, now: float, cost: float) -> None:
        """The frame's work in two parts (``CpuCost.rx_tcp_frac``): the driver's, IP's and ``tcp_v4_rcv``'s up to its
        ``sock_owned_by_user`` check on the CPU that takes it in, then TCP's, on the owner's CPU from the socket's
        backlog if a call owns the socket at the check (``tcp_add_backlog``; run at ``__release_sock``), else straight
        on in the softirq (``tcp_v4_do_rcv``). Linux ``tcp_v4_rcv``. The check sees the calls under way as the work is
        queued; one that begins before the check is caught only when TCP's part ends (:meth:`_deliver`), as an event at
        the check's own instant lost on the table held out to judge it (validation/README.md, "The check at its
        instant")."""
        dst = seg.dst
        server = self._rx_server(seg, cpu_index)
        pre = cost * self._pre_frac
        check = server.run(now, pre) if pre > 0.0 else now
        if dst.owner_until_s > check >= dst.owner_from_s:
            call = seg.tx_call
            if self._rx_in_call and call is not None:
                _lasts(call, check, now)
            self._to_owner(seg, dst, cost - pre, check)
            return
        self._taken_in(seg, cpu_index, now, server.run(now, cost - pre))

    def _taken_in(self, seg: Segment, cpu_index: int, now: float, done: float) -> None:
        """The frame's work on the CPU that took it in ends at ``done``: TCP gets it then, in the order sent."""
        dst = seg.dst
        ahead = dst.rx_order_s
        if done < ahead:  # on a veth two CPUs take in one connection's segments: TCP gets them in the order sent
            done = ahead
        dst.rx_order_s = done
        call = seg.tx_call
        if self._rx_in_call and call is not None:
            _lasts(call, done, now)
        self._handler_until[cpu_index] = done
        self._deliver_lanes[cpu_index].call_at(done, seg, cpu_index)

    def _to_owner(self, seg: Segment, dst: TcpEndpoint, cost: float, now: float) -> None:
        """The socket's application is inside a call: the segment joins the socket's backlog and the application
        runs it on its CPU after its own work, before the call returns (Linux ``tcp_v4_rcv``: ``sock_owned_by_user``
        -> ``tcp_add_backlog``; ``release_sock`` -> ``__release_sock``; a send flushes it only every 16 new skbs,
        ``tcp_sendmsg_locked``). No wake-up: the owner is running. It joins the backlog only once the connection's
        segment ahead of it is taken in (the receiving CPU's backlog, ``enqueue_to_backlog``, is first in first out,
        and ``tcp_v4_rcv`` takes the socket's lock first), so it never overtakes one still waiting for a CPU.

        It leaves the receiving CPU's input queue here (``process_backlog`` dequeues it before ``tcp_v4_rcv`` runs),
        so it no longer counts against ``netdev_max_backlog`` (``nic.backlog_packets``). The socket's backlog has its
        own limit in bytes (``tcp_add_backlog``: twice ``sk_rcvbuf`` plus half ``sk_sndbuf`` plus 64 KiB, with
        the receive queue's memory), which the advertised window keeps a sender below, so it is not modelled."""
        self.backlog -= 1
        cpu = dst.owner_cpu
        ahead = dst.rx_order_s
        done = self.cpus[cpu].run(ahead if ahead > now else now, cost)
        dst.rx_order_s = done
        dst.owner_until_s = done
        self._backlog_lanes[cpu].call_at(done, seg, cpu)

    def _run_backlog(self, seg: Segment, cpu_index: int) -> None:
        dst = seg.dst
        if dst.owned_ahead:
            self._run_owned(dst, cpu_index)
        dst.on_segment(seg, cpu_index)

    def _run_owned(self, dst: TcpEndpoint, cpu_index: int) -> None:
        """The segments whose softirq work was done when they found ``dst`` owned (:meth:`_deliver`), in the order
        they came: the head of its backlog, run before any segment that came after them."""
        ahead = dst.owned_ahead
        if ahead:
            dst.owned_ahead = []
            for seg in ahead:
                dst.on_segment(seg, cpu_index)

    def _deliver(self, seg: Segment, cpu_index: int) -> None:
        self.backlog -= 1
        dst = seg.dst
        now = self.kernel.now_s
        if dst.owner_until_s > now >= dst.owner_from_s:
            # tcp_v4_rcv finds the socket owned by a call that took it while this segment's work ran: the segment
            # waits in the socket's backlog, whose head the owner runs when its own work ends (__release_sock),
            # ahead of the segments that came after it, whose work the owner runs
            ahead = dst.owned_ahead
            ahead.append(seg)
            if len(ahead) == 1:
                end = dst.owner_call_end_s
                self._owned_lanes[dst.owner_cpu].call_at(end if end > now else now, dst, dst.owner_cpu)
            return
        veth = self._rx_on_peer
        if not (veth or self.charges_wakes):
            dst.on_segment(seg, cpu_index)
            return
        server = self._rx_server(seg, cpu_index)
        if veth:  # what the softirq sends runs on its CPU, in the call it is part of
            self._proc_cpu = server
            self._proc_call = seg.tx_call
        if self.charges_wakes:
            self.waker = server
        dst.on_segment(seg, cpu_index)
        self._proc_cpu = self._proc_call = self.waker = None

    def charge_wake(self, last_woken_s: float) -> float:
        """An application here blocked and is made runnable now, its previous wake-up at ``last_woken_s`` (-1:
        none): the delivery that did it (if one is running) pays ``CpuCost.wake_cost_after_s`` on its CPU (Linux
        ``try_to_wake_up``; on a VM the inter-processor interrupt's exits). Returns now, the new last wake-up."""
        now = self.kernel.now_s
        waker = self.waker
        if waker is not None:
            since_s = now - last_woken_s if last_woken_s >= 0.0 else math.inf
            waker.run(now, held_below(self._wake_cost_pts, since_s))  # CpuCost.wake_cost_after_s
        return now

    def hand_up(self, cpu: int) -> float:
        """Charge one hand-off of received data to the socket on ``cpu`` (``CpuCost.per_push_s``); returns
        when the reader may see it."""
        now = self.kernel.now_s
        if not self.per_push_s:
            return now
        server = self._proc_cpu
        return (server if server is not None else self.cpus[cpu]).run(now, self.per_push_s)

    # --- application system calls ------------------------------------------------------------------
    def wake_delay_s(self, idle_s: float) -> float:
        """How late an application that blocked ``idle_s`` ago runs once it can (``CpuCost.wake_latency_s``, spread
        by ``wake_latency_spread``: one draw per wake-up), and now and then a stall more (``CpuCost.wake_stall_frac``,
        one draw per wake-up)."""
        if not self.wakes_late:
            return 0.0
        late = from_zero(self._wake_latency_pts, idle_s)  # CpuCost.wake_latency_after_s
        draw = self._draw
        if self._spread and draw is not None:
            late *= quantile_at(self._wake_spread, draw())  # CpuCost.wake_latency_factor
        if draw is not None and self._stall_frac > 0.0 and draw() < self._stall_frac:
            late += self._stall_s
        return late

    def syscall(self, cpu: int, size_bytes: int, new_call: bool, extra_passes: int = 0,
                receive: bool = False) -> float:
        """Queue a send (or, with ``receive``, a recv) call moving ``size_bytes``; returns its completion time.

        ``extra_passes`` are further trips through the stream head into TCP within the same call
        (Solaris ``tcp_maxpsz_multiplier``); each costs what entering the kernel costs.
        """
        if receive:
            cost = size_bytes * self.per_byte_copy_rx_s + (self.per_syscall_rx_s if new_call else 0.0)
        else:
            cost = size_bytes * self.per_byte_copy_s + self.per_syscall_s * ((1 if new_call else 0) + extra_passes)
        now = self.kernel.now_s
        if cost <= 0.0:
            return now
        return self.cpus[cpu].run(now, cost)
