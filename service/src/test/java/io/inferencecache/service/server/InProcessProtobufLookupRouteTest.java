package io.inferencecache.service.server;

/**
 * {@link LookupRouteBehaviourSuite} on the in-process transport, default protobuf LookupRoute path
 * ({@code definition(false)}).
 */
class InProcessProtobufLookupRouteTest extends LookupRouteBehaviourSuite {
  @Override
  ServiceHarness.Transport transport() {
    return ServiceHarness.Transport.IN_PROCESS_PROTOBUF;
  }
}
