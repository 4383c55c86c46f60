from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from evalsite import roles
from tests.conftest import make_user


@pytest.mark.django_db
class TestRolesOf:
    def test_it_reads_groups(self, judge: User, annotator: User) -> None:
        assert roles.roles_of(judge) == {roles.JUDGES}
        assert roles.roles_of(annotator) == {roles.ANNOTATORS}

    def test_it_counts_staff_as_coordinators(self, staff: User) -> None:
        assert roles.has_role(staff, roles.COORDINATORS)

    def test_it_allows_several_roles(self) -> None:
        both = make_user("bo", roles.JUDGES, roles.ANNOTATORS)
        assert roles.roles_of(both) == {roles.JUDGES, roles.ANNOTATORS}

    def test_it_gives_outsiders_and_inactive_users_nothing(self, outsider: User) -> None:
        assert roles.roles_of(outsider) == frozenset()
        inactive = make_user("ina", roles.JUDGES)
        inactive.is_active = False
        assert roles.roles_of(inactive) == frozenset()

    def test_the_migration_created_the_groups(self) -> None:
        from django.contrib.auth.models import Group

        assert set(Group.objects.values_list("name", flat=True)) >= set(roles.ROLES)


@pytest.mark.django_db
class TestRoleRequired:
    @staticmethod
    def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse("ok")

    def test_it_redirects_anonymous_users_to_login(self) -> None:
        from django.contrib.auth.models import AnonymousUser

        request = RequestFactory().get("/somewhere/")
        request.user = AnonymousUser()
        response = roles.judge_required(self.view)(request)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=/somewhere/")

    def test_it_refuses_the_wrong_role(self, annotator: User) -> None:
        from django.core.exceptions import PermissionDenied

        request = RequestFactory().get("/")
        request.user = annotator
        with pytest.raises(PermissionDenied):
            roles.judge_required(self.view)(request)

    def test_it_lets_the_right_role_in(self, judge: User) -> None:
        request = RequestFactory().get("/")
        request.user = judge
        assert roles.judge_required(self.view)(request).content == b"ok"

    def test_it_rejects_unknown_role_names(self) -> None:
        with pytest.raises(ValueError, match="unknown roles"):
            roles.role_required("wizards")
