from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from evalsite import interface_language, invitation_views, people_views, sign_in, views

# The admin signs in with the site's throttled form; failures count on both pages.
admin.site.login_form = sign_in.ThrottledAdminAuthenticationForm

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", sign_in.LoginView.as_view(), name="login"),
    path("accounts/password_reset/", sign_in.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/setlang/", interface_language.set_language, name="set_language"),
    path("people/invitations/", invitation_views.invitation_list, name="invitations"),
    path(
        "people/invitations/<int:invitation_id>/revoke/",
        invitation_views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("people/add/", people_views.bulk_add, name="bulk_add"),
    path(
        "people/<int:user_id>/deactivate/",
        people_views.deactivate_person,
        name="deactivate_person",
    ),
    path("join/<str:token>/", invitation_views.signup, name="signup"),
    path("jobs/", views.job_list, name="job_list"),
    path("jobs/<int:job_id>/", views.job_detail, name="job_detail"),
    path("jobs/<int:job_id>/resume/", views.job_resume, name="job_resume"),
    # Sending dialogues to annotation is annotation's page, at its place among the simulation's.
    path("live/simulate/", include("annotation.from_live.urls")),
    path("live/simulate/", include("liveeval.simulation.urls")),
    path("live/", include("liveeval.urls")),
    path("api/booking/", include("liveeval.api_urls")),
    path("annotation/intent/", include("annotation.from_intent.urls")),
    path("annotation/", include("annotation.urls")),
    path("intent/", include("intent.urls")),
    path("fidelity/", include("fidelity.urls")),
    path(f"{settings.ADMIN_PATH}login/", sign_in.admin_login, name="admin_sign_in"),
    path(settings.ADMIN_PATH, admin.site.urls),
]
