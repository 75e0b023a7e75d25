package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The service definition the server registers, on either LookupRoute path. */
class ServiceDefinitionTest {
  private static final List<String> PROTO_ORDER =
      InferenceCacheGrpc.getServiceDescriptor().getMethods().stream()
          .map(MethodDescriptor::getFullMethodName)
          .collect(Collectors.toList());

  @Test
  void listsEveryMethodInTheProtosOrderOnBothPaths() throws Exception {
    for (final boolean zeroCopy : new boolean[] {true, false}) {
      try (ServiceHarness h = ServiceHarness.defaults(zeroCopy)) {
        final ServerServiceDefinition def = h.service.definition(zeroCopy);
        assertThat(
                def.getServiceDescriptor().getMethods().stream()
                    .map(MethodDescriptor::getFullMethodName))
            .containsExactlyElementsOf(PROTO_ORDER);
        assertThat(
                def.getMethods().stream()
                    .map(m -> m.getMethodDescriptor().getFullMethodName())
                    .sorted())
            .containsExactlyElementsOf(PROTO_ORDER.stream().sorted().toList());
      }
    }
  }

  @Test
  void lookupRouteIsTheZeroCopyMethodOnlyWhenAskedFor() throws Exception {
    final String name = InferenceCacheGrpc.getLookupRouteMethod().getFullMethodName();
    try (ServiceHarness h = ServiceHarness.defaults(true)) {
      final ServerMethodDefinition<?, ?> zeroCopy = h.service.definition(true).getMethod(name);
      assertThat(zeroCopy.getMethodDescriptor().getRequestMarshaller())
          .isNotSameAs(InferenceCacheGrpc.getLookupRouteMethod().getRequestMarshaller());
      final ServerMethodDefinition<?, ?> proto = h.service.definition(false).getMethod(name);
      assertThat(proto.getMethodDescriptor().getRequestMarshaller())
          .isSameAs(InferenceCacheGrpc.getLookupRouteMethod().getRequestMarshaller());
    }
  }
}
