"""The registry's SVRCONN channel governs each new connection; configured channels reach the
registry at start; refusals at ID time carry the STATUS code a real queue manager sends."""

from __future__ import annotations

import dataclasses

import trio
import trio.testing

from qmlite.pcf import fap
from qmlite.registry.objects import channels as M
from qmlite.registry.storage.catalog import Registry
from qmlite.server import config, svrconn
from qmlite.server.config import ChannelConfig
from tests.support.rawfap import RawPeer, client_id, handshake, running_server


def _change(server, name: str, **fields) -> None:
    reg = server.registry
    reg.put_object(M.KIND, dataclasses.replace(reg.objects(M.KIND)[name], **fields))
    reg.commit()


async def _refusal(server, channel: str) -> int:
    peer = await RawPeer.connect(server)
    await peer.send(fap.encode_segment(fap.INITIAL_DATA, client_id(channel).pack(fap.BIG), struct_id=fap.TSH,
                                       byte_order=1))
    seg = await peer.receive()
    assert seg.header.SegmentType == fap.STATUS_DATA
    assert seg.header.ControlFlags1 == fap.CF1_ERROR | fap.CF1_CLOSE_CHANNEL
    assert await peer.closed()
    return fap.decode_body(seg).ReturnCode


async def test_a_changed_channel_governs_the_next_negotiation(tmp_path):
    async with running_server(tmp_path) as server:
        _change(server, "DEV.ADMIN.SVRCONN", sharing_conversations=0, heartbeat_interval=30, max_msg_length=100_000)
        peer = await RawPeer.connect(server)
        agreed = await handshake(peer)
        assert (agreed.SharingConversations, agreed.HeartbeatInterval, agreed.MaxMessageSize) == (0, 30, 100_000)


async def test_wrong_type_stopped_and_unknown_channels_are_refused_at_id_time(tmp_path):
    async with running_server(tmp_path) as server:
        assert await _refusal(server, "SYSTEM.DEF.SENDER") == fap.CHANNEL_WRONG_TYPE
        assert await _refusal(server, "NOT.DEFINED") == fap.NO_CHANNEL
        server.registry.running.stop("DEV.APP.SVRCONN")
        assert await _refusal(server, "DEV.APP.SVRCONN") == fap.CHANNEL_UNAVAILABLE
        _change(server, "DEV.ADMIN.SVRCONN", max_instances=0)
        assert await _refusal(server, "DEV.ADMIN.SVRCONN") == fap.CHANNEL_UNAVAILABLE


async def test_the_channel_instance_ends_with_its_socket(tmp_path):
    async with running_server(tmp_path) as server:
        peer = await RawPeer.connect(server)
        await handshake(peer)
        [instance] = server.registry.running.instances_of("DEV.ADMIN.SVRCONN")
        assert instance.conn_name == "127.0.0.1" and instance.conversations == 1
        await peer.stream.aclose()
        await trio.testing.wait_all_tasks_blocked()  # the connection task has seen the end and cleaned up
        assert server.registry.running.instances_of("DEV.ADMIN.SVRCONN") == []


def test_configured_channels_reach_the_registry_at_start(tmp_path):
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    try:
        cfg = config.load(environ={}, overrides={"data_dir": tmp_path, "channels": (
            ChannelConfig("TEAM.SVRCONN", sharing_conversations=1),
            ChannelConfig("DEV.APP.SVRCONN", heartbeat_interval=5),
            ChannelConfig("SYSTEM.DEF.RECEIVER", heartbeat_interval=5))})
        assert svrconn.apply_config(cfg, reg) == ["TEAM.SVRCONN", "DEV.APP.SVRCONN"]
        channels = reg.objects(M.KIND)
        assert channels["TEAM.SVRCONN"].channel_type == M.SVRCONN
        assert channels["TEAM.SVRCONN"].sharing_conversations == 1
        assert channels["DEV.APP.SVRCONN"].heartbeat_interval == 5
        assert channels["DEV.APP.SVRCONN"].mca_user == "app"  # what the configuration does not say stays
        assert channels["SYSTEM.DEF.RECEIVER"].heartbeat_interval == 300  # not a SVRCONN: left alone
        assert svrconn.apply_config(cfg, reg) == []  # already so
    finally:
        reg.close()


def test_the_built_in_channel_list_does_not_recreate_a_deleted_channel(tmp_path):
    reg = Registry.open(tmp_path, synchronous="NORMAL")
    try:
        reg.remove_object(M.KIND, reg.objects(M.KIND)["DEV.APP.SVRCONN"])
        cfg = config.load(environ={}, overrides={"data_dir": tmp_path})
        assert svrconn.apply_config(cfg, reg) == []
        assert "DEV.APP.SVRCONN" not in reg.objects(M.KIND)
    finally:
        reg.close()


async def test_our_socket_is_dev_listener_tcp_and_a_stopped_listener_takes_no_new_clients(tmp_path):
    async with running_server(tmp_path) as server:
        running = server.registry.running
        assert running.served_listener == "DEV.LISTENER.TCP"
        assert running.listeners["DEV.LISTENER.TCP"].port == server.port
        running.listener_stopped("DEV.LISTENER.TCP")  # what Stop Listener does
        refused = await RawPeer.connect(server)
        assert await refused.closed()
        running.listener_started("DEV.LISTENER.TCP", server.port, 0.0)  # Start Listener
        peer = await RawPeer.connect(server)
        assert (await handshake(peer)).QMgrName.strip() == "QM1"
