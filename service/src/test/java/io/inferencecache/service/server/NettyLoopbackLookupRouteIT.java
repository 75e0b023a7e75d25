package io.inferencecache.service.server;

/**
 * {@link LookupRouteBehaviourSuite} over a real grpc-netty server ({@code GrpcServer}) on 127.0.0.1
 * with an ephemeral port and a plaintext Netty client; zero-copy LookupRoute path.
 */
class NettyLoopbackLookupRouteIT extends LookupRouteBehaviourSuite {
  @Override
  ServiceHarness.Transport transport() {
    return ServiceHarness.Transport.NETTY_ZERO_COPY;
  }
}
