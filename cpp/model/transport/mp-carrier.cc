// SPDX-License-Identifier: GPL-2.0-only

#include "mp-carrier.h"

#include "model/network/leo-shim-protocol.h"

#include "ns3/inet-socket-address.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"

#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// LeoShimProtocol on the link devices.
class LeoCarrier : public MpCarrier
{
  public:
    LeoCarrier(Ptr<LeoShimProtocol> shim,
               uint32_t index,
               Ipv4Address local,
               Ipv4Address peer,
               uint16_t port,
               uint16_t flow,
               ReceiveCallback cb)
        : m_shim(shim),
          m_index(index),
          m_port(port),
          m_cb(cb)
    {
        m_header.source = local;
        m_header.destination = peer;
        m_header.sourcePort = port;
        m_header.destinationPort = port;
        m_header.flow = flow;
        m_shim->Bind(port, MakeCallback(&LeoCarrier::Receive, this));
    }

    ~LeoCarrier() override
    {
        LeoCarrier::Close();
    }

    void Send(Ptr<Packet> packet, uint8_t ecn) override
    {
        if (m_shim)
        {
            m_header.ecn = ecn & 3;
            m_shim->Send(packet, m_header);
        }
    }

    void Close() override
    {
        if (m_shim)
        {
            m_shim->Unbind(m_port);
            m_shim = nullptr;
        }
    }

  private:
    void Receive(Ptr<Packet> packet, const LeoShimHeader& header)
    {
        m_cb(m_index, packet, header.ecn);
    }

    Ptr<LeoShimProtocol> m_shim;
    uint32_t m_index;
    uint16_t m_port;
    ReceiveCallback m_cb;
    LeoShimHeader m_header;
};

/// An ns-3 UDP socket, bound to (local, port) and connected to (peer, port).
class UdpCarrier : public MpCarrier
{
  public:
    UdpCarrier(Ptr<Node> node,
               uint32_t index,
               Ipv4Address local,
               Ipv4Address peer,
               uint16_t port,
               ReceiveCallback cb,
               bool readEcn)
        : m_index(index),
          m_cb(cb),
          m_readEcn(readEcn)
    {
        m_socket = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
        if (m_socket->Bind(InetSocketAddress(local, port)) != 0 ||
            m_socket->Connect(InetSocketAddress(peer, port)) != 0)
        {
            throw std::runtime_error("cannot bind/connect the UDP socket of path " +
                                     std::to_string(index));
        }
        m_socket->SetRecvCallback(MakeCallback(&UdpCarrier::HandleRead, this));
        if (m_readEcn)
        {
            m_socket->SetIpRecvTos(true); // the socket tags each packet with its TOS byte
        }
    }

    ~UdpCarrier() override
    {
        UdpCarrier::Close();
    }

    void Send(Ptr<Packet> packet, uint8_t ecn) override
    {
        if (m_socket)
        {
            if (ecn != 0)
            {
                // Ipv4L3Protocol takes the TOS byte of the header from this tag.
                SocketIpTosTag tos;
                tos.SetTos(ecn & 3);
                packet->ReplacePacketTag(tos);
            }
            m_socket->Send(packet);
        }
    }

    void Close() override
    {
        if (m_socket)
        {
            m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
            m_socket->Close();
            m_socket = nullptr;
        }
    }

  private:
    void HandleRead(Ptr<Socket> socket)
    {
        Ptr<Packet> packet;
        while ((packet = socket->Recv()))
        {
            uint8_t ecn = 0;
            SocketIpTosTag tos;
            if (m_readEcn && packet->RemovePacketTag(tos))
            {
                ecn = tos.GetTos() & 3;
            }
            m_cb(m_index, packet, ecn);
        }
    }

    Ptr<Socket> m_socket;
    uint32_t m_index;
    ReceiveCallback m_cb;
    bool m_readEcn;
};

} // namespace

MpCarrier::~MpCarrier() = default;

Ptr<MpCarrier>
MpCarrier::Open(MpCarrierKind kind,
                Ptr<Node> node,
                uint32_t index,
                Ipv4Address local,
                Ipv4Address peer,
                uint16_t port,
                uint16_t flow,
                ReceiveCallback cb,
                bool readEcn)
{
    if (kind == MpCarrierKind::UDP)
    {
        return Ptr<MpCarrier>(new UdpCarrier(node, index, local, peer, port, cb, readEcn), false);
    }
    Ptr<LeoShimProtocol> shim = node->GetObject<LeoShimProtocol>();
    if (!shim)
    {
        throw std::runtime_error("path " + std::to_string(index) +
                                 ": the node has no LeoShimProtocol (the topology installs it)");
    }
    try
    {
        return Ptr<MpCarrier>(new LeoCarrier(shim, index, local, peer, port, flow, cb), false);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(e.what());
    }
}

} // namespace ns3
