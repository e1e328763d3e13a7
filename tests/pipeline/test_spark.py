"""The pipeline's Spark session (pipeline/spark.py): what its JVM is started with."""

from __future__ import annotations


def test_the_jvm_compiles_after_four_times_the_usual_calls_and_collects_for_throughput(spark):
    # decisions SK7 and issue 10: read back from the running JVM, not from the configuration asked for
    bean = spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    arguments = list(bean.getInputArguments())
    assert "-XX:CompileThresholdScaling=4" in arguments and "-XX:+UseParallelGC" in arguments
    flag = spark._jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        spark._jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
    assert float(flag.getVMOption("CompileThresholdScaling").getValue()) == 4.0
