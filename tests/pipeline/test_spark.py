"""The pipeline's Spark session (pipeline/spark.py): what its JVM is started with."""

from __future__ import annotations

# HotSpot's defaults (JDK 17): C2 takes a method after these; the pipeline's JVM waits ten times longer (SK7).
C2_DEFAULTS = {"Tier4InvocationThreshold": 5000, "Tier4MinInvocationThreshold": 600, "Tier4CompileThreshold": 15000,
               "Tier4BackEdgeThreshold": 40000}


def test_the_jvm_hands_methods_to_c2_ten_times_later_and_collects_for_throughput(spark):
    # decisions SK7 and issue 10: read back from the running JVM, not from the configuration asked for
    jvm = spark._jvm
    assert "-XX:+UseParallelGC" in list(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
                                        .getInputArguments())
    hotspot = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
    assert {name: int(hotspot.getVMOption(name).getValue()) for name in C2_DEFAULTS} == {
        name: 10 * value for name, value in C2_DEFAULTS.items()}
    assert hotspot.getVMOption("Tier3InvocationThreshold").getValue() == "200"  # C1's as usual
    assert hotspot.getVMOption("CompileThresholdScaling").getValue() in ("1.0", "1")
