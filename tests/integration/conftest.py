import pytest

from gantry_cluster import Cluster, local_users


@pytest.fixture
def cluster_factory():
    """Makes clusters and stops every one of them after the test."""
    made = []

    def make(**kwargs):
        cluster = Cluster(**kwargs)
        made.append(cluster)
        return cluster.start()

    yield make
    for cluster in made:
        cluster.cleanup()


@pytest.fixture
def cluster(cluster_factory):
    return cluster_factory()


@pytest.fixture
def two_users():
    """Two throw-away local users, removed after the test (ask for this
    fixture before the cluster, so the cluster stops first)."""
    with local_users(2) as names:
        yield names
