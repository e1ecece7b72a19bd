"""Pure protocol rules, free of simpy: each function or class states the RFC or OS behaviour it follows."""
