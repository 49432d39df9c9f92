import AudioIO
import DSP
import Degradation
import Fingerprinting
import Foundation
import OutsidePrograms

/// CPU seconds used by the calling thread, and by the child processes it waited for (`ChildCPU`: external commands).
package func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 + ChildCPU.thisThread
}

/// The process's peak resident memory in bytes.
package func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

extension Duration {
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// CPU seconds (user + system) used by `who`: this process (RUSAGE_SELF) or its finished children.
public func processCPUSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// CPU time (user + system) of this process and its finished child processes since creation, in seconds.
public struct CPUClock {
    private let start = CPUClock.now()
    public init() {}
    public static func now() -> Double { processCPUSeconds(RUSAGE_SELF) + processCPUSeconds(RUSAGE_CHILDREN) }
    public var elapsed: Double { CPUClock.now() - start }
}
