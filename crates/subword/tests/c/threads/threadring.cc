// Threadring (the Benchmarks Game's description): 503 threads in a ring
// pass a token; each pass takes one from it; the thread that gets it at 0
// prints its number. Each member waits on its own mutex and condition
// variable; when the count runs out every member is told to stop and main
// joins them all.
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kRing = 503;

struct Member {
    std::mutex m;
    std::condition_variable cv;
    bool has_token = false;
    bool stop = false;
};

std::vector<Member> ring(kRing);
long token;
std::mutex done_m;
std::condition_variable done_cv;
int winner = 0;

void give(int to)
{
    Member &n = ring[to];
    std::lock_guard<std::mutex> g(n.m);
    n.has_token = true;
    n.cv.notify_one();
}

void run(int me)
{
    Member &self = ring[me];
    for (;;) {
        {
            std::unique_lock<std::mutex> l(self.m);
            self.cv.wait(l, [&] { return self.has_token || self.stop; });
            if (self.stop)
                return;
            self.has_token = false;
        }
        if (token == 0) {
            std::lock_guard<std::mutex> g(done_m);
            winner = me + 1;
            done_cv.notify_one();
            continue;
        }
        token--;
        give((me + 1) % kRing);
    }
}

} // namespace

int main(int argc, char **argv)
{
    token = argc > 1 ? std::atol(argv[1]) : 1000;
    std::vector<std::thread> members;
    members.reserve(kRing);
    for (int i = 0; i < kRing; i++)
        members.emplace_back(run, i);
    give(0);
    {
        std::unique_lock<std::mutex> l(done_m);
        done_cv.wait(l, [] { return winner != 0; });
    }
    for (Member &n : ring) {
        std::lock_guard<std::mutex> g(n.m);
        n.stop = true;
        n.cv.notify_one();
    }
    for (std::thread &t : members)
        t.join();
    std::cout << winner << '\n';
    return 0;
}
