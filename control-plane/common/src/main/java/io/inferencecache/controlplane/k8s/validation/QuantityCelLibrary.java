package io.inferencecache.controlplane.k8s.validation;

import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import io.kubernetes.client.custom.Quantity;
import java.math.BigDecimal;
import java.util.List;

/**
 * The part of the Kubernetes CEL quantity library that CRD rules use: {@code quantity(string)},
 * {@code isQuantity(string)} and the comparisons and conversions of a quantity. Values are
 * client-java {@link Quantity} objects, compared by their exact decimal value.
 */
final class QuantityCelLibrary {
  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");

  private QuantityCelLibrary() {}

  static List<CelFunctionDecl> declarations() {
    return List.of(
        CelFunctionDecl.newFunctionDeclaration(
            "quantity",
            CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY, SimpleType.STRING)),
        CelFunctionDecl.newFunctionDeclaration(
            "isQuantity",
            CelOverloadDecl.newGlobalOverload(
                "is_quantity_string", SimpleType.BOOL, SimpleType.STRING)),
        member("isGreaterThan", "quantity_is_greater_than", SimpleType.BOOL, QUANTITY),
        member("isLessThan", "quantity_is_less_than", SimpleType.BOOL, QUANTITY),
        member("compareTo", "quantity_compare_to", SimpleType.INT, QUANTITY),
        member("sign", "quantity_sign", SimpleType.INT),
        member("isInteger", "quantity_is_integer", SimpleType.BOOL),
        member("asInteger", "quantity_as_integer", SimpleType.INT),
        member("asApproximateFloat", "quantity_as_approximate_float", SimpleType.DOUBLE));
  }

  static List<CelFunctionBinding> bindings() {
    return List.of(
        CelFunctionBinding.from("string_to_quantity", String.class, QuantityCelLibrary::parse),
        CelFunctionBinding.from(
            "is_quantity_string", String.class, s -> QuantityCelLibrary.tryParse(s) != null),
        CelFunctionBinding.from(
            "quantity_is_greater_than",
            Quantity.class,
            Quantity.class,
            (a, b) -> a.getNumber().compareTo(b.getNumber()) > 0),
        CelFunctionBinding.from(
            "quantity_is_less_than",
            Quantity.class,
            Quantity.class,
            (a, b) -> a.getNumber().compareTo(b.getNumber()) < 0),
        CelFunctionBinding.from(
            "quantity_compare_to",
            Quantity.class,
            Quantity.class,
            (a, b) -> (long) Integer.signum(a.getNumber().compareTo(b.getNumber()))),
        CelFunctionBinding.from(
            "quantity_sign", Quantity.class, q -> (long) q.getNumber().signum()),
        CelFunctionBinding.from("quantity_is_integer", Quantity.class, QuantityCelLibrary::isInt64),
        CelFunctionBinding.from("quantity_as_integer", Quantity.class, QuantityCelLibrary::asInt64),
        CelFunctionBinding.from(
            "quantity_as_approximate_float", Quantity.class, q -> q.getNumber().doubleValue()));
  }

  private static CelFunctionDecl member(
      String name, String overloadId, CelType result, CelType... args) {
    CelType[] all = new CelType[args.length + 1];
    all[0] = QUANTITY;
    System.arraycopy(args, 0, all, 1, args.length);
    return CelFunctionDecl.newFunctionDeclaration(
        name, CelOverloadDecl.newMemberOverload(overloadId, result, all));
  }

  private static Quantity parse(String text) throws CelEvaluationException {
    Quantity q = tryParse(text);
    if (q == null) {
      throw new CelEvaluationException("quantity(): invalid quantity \"" + text + "\"");
    }
    return q;
  }

  private static Quantity tryParse(String text) {
    try {
      return Quantity.fromString(text);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static boolean isInt64(Quantity q) {
    BigDecimal n = q.getNumber();
    try {
      n.toBigIntegerExact().longValueExact();
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }

  private static Object asInt64(Quantity q) throws CelEvaluationException {
    try {
      return q.getNumber().toBigIntegerExact().longValueExact();
    } catch (ArithmeticException e) {
      throw new CelEvaluationException("asInteger(): " + q.toSuffixedString() + " is not an int64");
    }
  }
}
