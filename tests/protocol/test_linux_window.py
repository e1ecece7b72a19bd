"""Linux's receive-window rules (tcpsim.protocol.linux_window), checked against the kernel's arithmetic."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tcpsim.protocol.linux_window import (DEFAULT_RATIO_6_6, DEFAULT_RATIO_6_8, PAGED_HEAD_BYTES, grow_ssthresh,
                                          initial_window, quickack_ends, rx_truesize, scaling_ratio, select_window,
                                          space_from_win, win_from_space, window_clamp)
from tcpsim.protocol.window import window_shift


def test_scaling_ratio_is_payload_over_truesize_in_256ths():
    # tcp_measure_rcv_mss: (skb->len << 8) / skb->truesize
    assert scaling_ratio(1448, 1448 + 832) == 1448 * 256 // 2280 == 162
    assert scaling_ratio(8948, 8948 + 832) == 234
    assert scaling_ratio(1, 100000) == 1          # never 0
    assert scaling_ratio(5000, 100) == 255        # a u8


def test_truesize_of_a_paged_receive_path_is_whole_pages_and_a_head():
    """tun_alloc_skb -> alloc_skb_with_frags: a packet that with its 64 bytes of headroom does not fit a page
    is held in page chunks summing to the packet rounded up to pages. The ratios
    are the ones the lab VM's kernel showed through its TUN delay line (TCP_WINDOW_CLAMP = SO_RCVBUF x
    ratio / 256: 44544 of 65536 at MTU 9000, 16128 of 32768 with 4474-byte segments)."""
    assert rx_truesize(8948, 9000, 832, 4096) == 12288 + PAGED_HEAD_BYTES
    assert scaling_ratio(8948, rx_truesize(8948, 9000, 832, 4096)) == 174
    assert scaling_ratio(4474, rx_truesize(4474, 4526, 832, 4096)) == 126
    # the MTU-1500 ratio, 205 (26240 of 32768), is the connection's first skb: a GSO aggregate of five
    # segments (7240 bytes in one 7292-byte packet, two pages)
    assert scaling_ratio(7240, rx_truesize(7240, 7292, 832, 4096)) == 205
    assert rx_truesize(8948, 9000, 832, 0) == 8948 + 832             # no paging: payload and overhead


def test_truesize_of_a_packet_under_a_page_is_its_kmalloc_size_class():
    """tun_alloc_skb copies a packet that fits a page with its 64 bytes of headroom into one kmalloc'd head:
    the lab VM's trace (2026-11-27, netif_receive_skb) showed 2,304 bytes for a 1,500-byte packet and 4,352
    for a 2,948-byte one (2 KiB and 4 KiB classes, plus the 256-byte sk_buff)."""
    assert rx_truesize(1448, 1500, 832, 4096) == 2304
    assert rx_truesize(2896, 2948, 832, 4096) == 4352
    assert rx_truesize(3900, 3952, 832, 4096) == 8192 + 256           # 4,032 + 320 bytes of shared info: the 8 KiB class
    assert rx_truesize(3980, 4032, 832, 4096) == 4096 + PAGED_HEAD_BYTES  # 64 + 4,032 = PAGE_SIZE: paged
    assert rx_truesize(8, 60, 832, 4096) == PAGED_HEAD_BYTES          # a small head: the small-head cache


def test_default_ratios_of_6_6_and_6_8():
    assert DEFAULT_RATIO_6_6 == (1200 << 8) // (4096 + 576) == 65   # "1200 bytes of payload per 4K page"
    assert DEFAULT_RATIO_6_8 == 128                                 # half the buffer


def test_win_from_space_before_and_after_6_6():
    assert win_from_space(131072, 2, 0) == 98304      # tcp_adv_win_scale 2: 3/4
    assert win_from_space(131072, 1, 0) == 65536      # tcp_adv_win_scale 1: 1/2
    assert win_from_space(131072, -2, 0) == 32768     # negative: space >> 2
    assert win_from_space(131072, 1, 162) == 131072 * 162 >> 8 == 82944   # 6.6+: the ratio, adv_win_scale unused
    assert win_from_space(-5, 1, 162) == 0


@given(st.integers(1, 1 << 30), st.sampled_from([(1, 0), (2, 0), (-1, 0), (0, 162), (0, 234), (0, 128)]))
def test_space_from_win_inverts_win_from_space(window, rule):
    adv, ratio = rule
    space = space_from_win(window, adv, ratio)
    assert window - 2 <= win_from_space(space, adv, ratio) <= window


def test_window_clamp_keeps_one_mss_back():
    # tcp_init_buffer_space with tcp_app_win 31: max(2 * advmss, maxwin - advmss) once maxwin > 2 * advmss
    assert window_clamp(65536, 1460) == 64076
    assert window_clamp(20000, 8960) == 17920
    assert window_clamp(2900, 1460) == 2900


def test_window_scale_is_chosen_for_the_largest_space():
    assert window_shift(65535, True) == 0
    assert window_shift(65536, True) == 1
    assert window_shift(6291456, True) == 7      # tcp_rmem[2] 6 MiB
    assert window_shift(1 << 31, True) == 14
    assert window_shift(6291456, False) == 0


def test_initial_window_rounds_to_mss_and_caps_old_kernels_at_ten_segments():
    assert initial_window(65536, 1448, 65536, 1, 0) == 45 * 1448       # 4.20 on: whole MSS, <= 65535
    assert initial_window(65536, 1448, 65536, 1, 10) == 14480          # before 4.20: 10 segments
    assert initial_window(65536, 8948, 65536, 1, 10) == 2 * 8948       # MSS > 1460: 14600 // 8948 -> 2
    assert initial_window(1 << 20, 1448, 1 << 30, 7, 0) == 65535       # the SYN's window is never scaled: U16_MAX
    assert initial_window(65536, 1448, 20000, 1, 0) == 13 * 1448       # within the clamp


def test_without_window_scaling_the_window_is_whole_segments():
    # An MTU-9000 receiver with a 29952-byte window offers three segments, never a part of one.
    wnd = select_window(29952, 29952, 29952, 29952, 8948, 0, 0, 0)
    assert wnd == 3 * 8948
    # a window within one MSS of the free space is kept as it was (no divide)
    assert select_window(29000, 29952, 29952, 29952, 8948, 0, 26844, 0) == 26844


def test_with_window_scaling_the_window_rounds_up_to_the_scale_unit():
    wnd = select_window(82944, 82944, 82944, 81000, 1448, 7, 0, 0)
    assert wnd == 81024 and wnd % 128 == 0 and wnd >= 81000


def test_window_is_at_most_rcv_ssthresh():
    assert select_window(82944, 82944, 82944, 14480, 1448, 1, 0, 0) == 14480


def test_a_nearly_full_buffer_offers_zero_but_never_shrinks_an_offer():
    # free space below half the buffer and below one MSS: zero window ...
    assert select_window(1000, 82944, 82944, 82944, 1448, 1, 0, 0) == 0
    # ... unless that would pull back the right edge already offered (it stays, rounded up to the unit)
    assert select_window(1000, 82944, 82944, 82944, 1448, 7, 5000, 3000) == 3072


def test_quickack_ends_below_half_the_smaller_of_clamp_and_full_space():
    # The 4 ms, MTU 1500, 16 KiB lab scenario: clamp = full space = 20992 (ratio 164 of 32768 bytes). Two
    # 5792-byte aggregates queued (2 x 9024 of truesize) leave (32768 - 18048) x 164 / 256 = 9430 free.
    assert quickack_ends(9430, 20992, 20992)
    assert not quickack_ends(10496, 20992, 20992)          # exactly half: the mode stays
    assert quickack_ends(10000, 40000, 20992)              # the clamp is the smaller
    assert not quickack_ends(15211, 20992, 20992)          # one aggregate queued


def test_rcv_ssthresh_grows_two_segments_per_segment_up_to_the_room():
    assert grow_ssthresh(14480, 82944, 82944, 1460, 1448) == 14480 + 2920
    assert grow_ssthresh(81000, 82944, 82944, 1460, 1448) == 82944
    assert grow_ssthresh(60000, 82944, 50000, 1460, 1448) == 60000     # no room: free space below it
    assert grow_ssthresh(14480, 82944, 82944, 1460, 100) == 14480       # segments under 128 bytes do not count


@given(st.integers(0, 1 << 22), st.integers(1, 1 << 22), st.integers(536, 9000), st.integers(0, 14),
       st.integers(0, 1 << 22), st.integers(0, 1 << 22))
def test_an_offer_never_pulls_the_edge_back_and_respects_the_scale(free, full, mss, wscale, last, cur):
    wnd = select_window(free, full, full, full, mss, wscale, last, cur)
    assert wnd >= cur
    if wscale and wnd > cur:
        assert wnd % (1 << wscale) == 0
